// A webhook server in a process of its own, for tests that kill it: the SQLite file and
// the secret come from the arguments, and the port it listens on is printed as one line.
import { loadServerConfig } from "../../src/config/env-config.ts";
import { startServer } from "../../src/server/start-server.ts";
import { testPrivateKey } from "./private-key.ts";

const [dbPath, secret] = process.argv.slice(2) as [string, string];
const config = loadServerConfig({ APP_ID: "42", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET: secret, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "fatal", AUTOGEN_DB_PATH: dbPath });
// No workers and no inbox handling: the rows stay as received.
const running = await startServer({ ...config, concurrency: 0 }, { inbox: { concurrency: 0 } });
process.stdout.write(`${(running.http.address() as { port: number }).port}\n`);
