// `autogen-bot serve` as a real child process with the fake GitHub preloaded (its requests
// to api.github.com answered by test/support/fake-github.ts, everything but loopback off
// the network): its output read line by line, its fake GitHub's record read after exit.
import { spawn, type ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeGitHubState } from "./fake-github.ts";
import type { FakeGitHubResult } from "./fake-github-preload.ts";
import { ROOT } from "./run-cli.ts";

const PRELOAD = join(ROOT, "test/support/fake-github-preload.ts");

export type ServeChild = {
  /** Resolves with the first match of `pattern` in stdout (waits for it). */
  waitFor: (pattern: RegExp) => Promise<RegExpExecArray>;
  output: () => { stdout: string; stderr: string };
  /** SIGTERM, the exit, then what the fake GitHub saw. */
  stop: () => Promise<{ code: number | null; github: FakeGitHubResult }>;
  child: ChildProcess;
};

export const BARE_STATE: FakeGitHubState = {
  issue: { title: "", body: "" },
  comments: [],
  pulls: [],
  permissions: {},
  files: {},
  defaultBranch: "main",
  cloneUrl: "",
};

type ServeChildOptions = { cwd: string; state: FakeGitHubState; env?: Record<string, string>; tag: string };

export async function serveChild(options: ServeChildOptions): Promise<ServeChild> {
  const statePath = join(options.cwd, `fake-github-${options.tag}.json`);
  const resultPath = join(options.cwd, `fake-github-${options.tag}-result.json`);
  await writeFile(statePath, JSON.stringify(options.state));
  const child = spawn(process.execPath, ["--import", PRELOAD, join(ROOT, "bin/autogen.js"), "serve"], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: options.cwd,
      // The test file's own temporary folder (test/support/per-file-tmpdir.ts).
      TMPDIR: tmpdir(),
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "fatal",
      AUTOGEN_DB_PATH: join(options.cwd, `autogen-${options.tag}.db`),
      AUTOGEN_TEST_FAKE_GITHUB_STATE: statePath,
      AUTOGEN_TEST_FAKE_GITHUB_RESULT: resultPath,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpExecArray) => void; reject: (e: Error) => void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      const match = w.pattern.exec(stdout);
      if (match) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(match);
      }
    }
  };
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
    check();
  });
  child.stderr?.on("data", (d: Buffer) => void (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      for (const w of waiters.splice(0)) {
        w.reject(new Error(`serve exited (${code}) before printing ${w.pattern}: ${stdout}${stderr}`));
      }
      resolve(code);
    }),
  );
  return {
    child,
    output: () => ({ stdout, stderr }),
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve, reject });
        check();
      }),
    stop: async () => {
      child.kill("SIGTERM");
      const code = await exited;
      const github = JSON.parse(await readFile(resultPath, "utf8")) as FakeGitHubResult;
      return { code, github };
    },
  };
}
