// A child for bench:ingress's crash trials: `autogen serve`'s server (no workers) over the
// given database and GitHub stand-in; prints its URL, then runs until killed.
import { generateKeyPairSync } from "node:crypto";
import { loadServerConfig } from "../src/config/env-config.ts";
import { startServer } from "../src/server/start-server.ts";

const [dbPath, githubUrl, secret] = process.argv.slice(2) as [string, string, string];
const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
const config = loadServerConfig({ APP_ID: "1", PRIVATE_KEY: privateKey, WEBHOOK_SECRET: secret, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "fatal", AUTOGEN_DB_PATH: dbPath });
const running = await startServer({ ...config, baseUrl: githubUrl, concurrency: 0 });
process.stdout.write(`${running.url}\n`);
// SIGTERM: the graceful stop `autogen serve` makes.
process.once("SIGTERM", () => void running.stop().then(() => process.exit(0)));
