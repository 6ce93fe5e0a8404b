// `autogen serve`'s server in a process of its own, for what kills it or measures it apart
// (the crash test, bench:ingress): `<db path> <secret> [GitHub URL]`. No job workers. With
// a GitHub stand-in's URL the inbox handles deliveries against it; without one the rows
// stay as received. Prints its base URL as one line; SIGTERM is the graceful stop.
import { loadServerConfig } from "../../src/config/env-config.ts";
import { startServer } from "../../src/server/start-server.ts";
import { testPrivateKey } from "./private-key.ts";

const [dbPath, secret, githubUrl] = process.argv.slice(2) as [string, string, string | undefined];
const config = loadServerConfig({
  APP_ID: "42",
  PRIVATE_KEY: testPrivateKey(),
  WEBHOOK_SECRET: secret,
  HOST: "127.0.0.1",
  PORT: "0",
  LOG_LEVEL: "fatal",
  AUTOGEN_DB_PATH: dbPath,
});
const running = await startServer(
  { ...config, concurrency: 0, ...(githubUrl ? { baseUrl: githubUrl } : {}) },
  githubUrl ? {} : { inbox: { concurrency: 0 } },
);
process.stdout.write(`${running.url}\n`);
process.once("SIGTERM", () => void running.stop().then(() => process.exit(0)));
