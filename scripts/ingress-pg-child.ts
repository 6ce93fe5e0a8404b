// A child for bench:ingress's Postgres phase: `autogen-bot serve`'s server with its workers on,
// over the Postgres at the given DATABASE_URL (shared with another instance), a data dir
// of its own (memory) and the GitHub stand-in; prints its URL, then runs until
// killed.
import { generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import { loadServerConfig } from "../src/config/env-config.ts";
import { startServer } from "../src/server/start-server.ts";

const [dataDir, githubUrl, secret, databaseUrl, concurrency] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 })
  .privateKey.export({ type: "pkcs1", format: "pem" })
  .toString();
const config = loadServerConfig({
  APP_ID: "1",
  PRIVATE_KEY: privateKey,
  WEBHOOK_SECRET: secret,
  HOST: "127.0.0.1",
  PORT: "0",
  LOG_LEVEL: "fatal",
  AUTOGEN_DB_PATH: join(dataDir, "autogen.db"),
  DATABASE_URL: databaseUrl,
  AUTOGEN_CONCURRENCY: concurrency,
});
const running = await startServer({ ...config, baseUrl: githubUrl });
process.stdout.write(`${running.url}\n`);
