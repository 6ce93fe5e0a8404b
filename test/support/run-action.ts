// Runs the GitHub Action's committed bundle (action/bundle/index.js, from a copy of the
// files a workflow checks out, with no node_modules) as the runner does: a
// node 24 child process with the runner's environment (GITHUB_EVENT_NAME and the event
// file, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, INPUT_<NAME> with dashes kept),
// GitHub faked inside that process by test/support/fake-github-preload.ts.
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pythonExecutable } from "../../src/verify/runners/python-executable.ts";
import type { FakeGitHubState } from "./fake-github.ts";
import type { FakeGitHubResult } from "./fake-github-preload.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** What a workflow's `uses:` checks out of this repository that the bundle reads at run time (no node_modules: Actions install nothing). */
const CHECKOUT = ["action.yml", "package.json", "action", "prompts", "resources", "templates"];
/** By test file (its temporary folder, where the copy is made: a worker process runs several files). */
const checkouts = new Map<string, Promise<string>>();

/** The action's files copied to a directory with no node_modules above it, as GITHUB_ACTION_PATH is on a runner. */
function actionCheckout(): Promise<string> {
  const tmp = tmpdir();
  let checkout = checkouts.get(tmp);
  if (!checkout) {
    checkout = (async () => {
      const dir = join(await mkdtemp(join(tmp, "autogen-action-path-")), "autogen-bot");
      for (const name of CHECKOUT) await cp(join(ROOT, name), join(dir, name), { recursive: true });
      return dir;
    })();
    checkouts.set(tmp, checkout);
  }
  return checkout;
}
const PRELOAD = fileURLToPath(new URL("./fake-github-preload.ts", import.meta.url));

export type ActionRun = {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  github: FakeGitHubResult;
};

/** GITHUB_OUTPUT as the runner reads it: `name=value` lines and `name<<DELIM` … `DELIM` blocks. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name = "", delimiter] = heredoc;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? "");
      if (i >= lines.length) throw new Error(`output ${name}: delimiter ${delimiter} never closed`);
      outputs[name] = value.join("\n");
    } else if (line.includes("=")) {
      outputs[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return outputs;
}

/**
 * The step's PATH: a runner's `python3` is the interpreter itself (actions/setup-python puts its folder
 * first), not a version manager's shim as on this machine (pyenv's: a bash script and about half a
 * second of CPU each time the action resolves the interpreter).
 */
function runnerPath(): string {
  const path = process.env.PATH ?? "/usr/bin:/bin";
  const python = pythonExecutable();
  return isAbsolute(python) ? `${dirname(python)}:${path}` : path;
}

export async function runAction(options: {
  event: string;
  payload: unknown;
  state: FakeGitHubState;
  inputs: Record<string, string>;
  workspace: string;
  env?: Record<string, string>;
}): Promise<ActionRun> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-action-run-"));
  const runnerTemp = join(dir, "runner-temp");
  await mkdir(runnerTemp);
  const paths = {
    event: join(dir, "event.json"),
    output: join(dir, "output"),
    summary: join(dir, "summary.md"),
    state: join(dir, "state.json"),
    result: join(dir, "result.json"),
  };
  await writeFile(paths.event, JSON.stringify(options.payload));
  await writeFile(paths.output, "");
  await writeFile(paths.summary, "");
  await writeFile(
    paths.state,
    JSON.stringify(options.state, (key, value: unknown) =>
      key === "zip" && value && typeof value === "object" && "type" in value
        ? Buffer.from((value as unknown as { data: number[] }).data).toString("base64")
        : value,
    ),
  );
  const actionPath = await actionCheckout();
  const env: Record<string, string> = {
    GITHUB_ACTION_PATH: actionPath,
    PATH: runnerPath(),
    HOME: process.env.HOME ?? dir,
    // The test file's own temporary folder (test/support/per-file-tmpdir.ts).
    TMPDIR: tmpdir(),
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: options.event,
    GITHUB_EVENT_PATH: paths.event,
    GITHUB_REPOSITORY: "octo-org/shop",
    GITHUB_REPOSITORY_OWNER: "octo-org",
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_API_URL: "https://api.github.com",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "4242",
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_OUTPUT: paths.output,
    GITHUB_STEP_SUMMARY: paths.summary,
    RUNNER_TEMP: runnerTemp,
    // GitHub is faked in the process: the writes need not be a second apart (three for a
    // comment or pull request), as real GitHub asks. A product setting (docs/actions.md).
    AUTOGEN_GITHUB_WRITE_SPACING_MS: "0",
    AUTOGEN_TEST_FAKE_GITHUB_STATE: paths.state,
    AUTOGEN_TEST_FAKE_GITHUB_RESULT: paths.result,
    ...Object.fromEntries(
      Object.entries(options.inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
    ),
    ...options.env,
  };
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", PRELOAD, join(actionPath, "action", "bundle", "index.js")],
      { env, cwd: options.workspace, maxBuffer: 64 * 1024 * 1024 },
      (error, out, err) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout: out, stderr: err });
      },
    );
  });
  const github = JSON.parse(
    await readFile(paths.result, "utf8").catch(
      () =>
        `{"state":null,"requests":[],"errors":["the action wrote no fake GitHub result (it did not exit normally)"],"unmatched":[]}`,
    ),
  ) as FakeGitHubResult;
  return {
    code,
    stdout,
    stderr,
    outputs: parseOutputFile(await readFile(paths.output, "utf8")),
    summary: await readFile(paths.summary, "utf8"),
    github,
  };
}
