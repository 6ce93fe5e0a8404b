// `npm run walk`: a newcomer's first hour, replayed from a fresh clone of main in a temp
// folder, through the commands the README and docs give: install, the demo, `fix` on a
// sample repository with only an issue, `serve` with nothing configured (setup page →
// GitHub's manifest flow → the App running; GitHub's side is the test suite's fake GitHub,
// preloaded into the server's process), `init-workflow` on a sample repository, and the
// dashboard demo. Prints each step's time and the first lines of its output; exit 1 when
// a step fails.
//
//   npm run walk [-- --source <git repository or path>] [--keep]
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const options = { source: { type: "string" }, keep: { type: "boolean" }, lines: { type: "string" } } as const;
const { values } = parseArgs({ options });
const source = values.source ?? fileURLToPath(new URL("..", import.meta.url));
const shown = Number(values.lines ?? 8);
const home = await mkdtemp(join(tmpdir(), "autogen-walk-"));
const clone = join(home, "autogen-bot");
// What a newcomer's shell has: a PATH and a HOME, no App or model settings.
const baseEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? home, LANG: "C.UTF-8" };

type Run = { code: number | null; output: string; ms: number };
const results: Array<{ step: string; ok: boolean; ms: number }> = [];

type RunOptions = { cwd: string; env?: Record<string, string>; timeoutMs?: number };

function run(command: string, args: string[], options: RunOptions): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve) => {
    const env = { ...baseEnv, ...options.env };
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => void (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => void (output += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 600_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: performance.now() - started });
    });
  });
}

function report(step: string, command: string, result: { ok: boolean; ms: number; output: string }): void {
  results.push({ step, ok: result.ok, ms: result.ms });
  const lines = result.output.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("npm warn EBADENGINE"));
  console.log(`\n== ${step}: ${result.ok ? "ok" : "FAILED"} in ${(result.ms / 1000).toFixed(1)} s\n   $ ${command}`);
  const cut = (line: string) => (line.length > 150 ? `${line.slice(0, 149)}…` : line);
  for (const line of lines.slice(0, shown)) console.log(`   | ${cut(line)}`);
  if (lines.length > shown) console.log(`   | … ${lines.length - shown} more lines`);
}

const exitedZero = (r: Run) => r.code === 0;

async function step(name: string, command: string, args: string[], cwd: string, ok = exitedZero): Promise<Run> {
  const result = await run(command, args, { cwd });
  report(name, `${command} ${args.join(" ")}`, { ok: ok(result), ms: result.ms, output: result.output });
  return result;
}

async function gitRepository(dir: string, files: Record<string, string>): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const id = ["-c", "user.name=Newcomer", "-c", "user.email=newcomer@example.invalid"];
  await run("git", ["init", "--quiet", "--initial-branch=main"], { cwd: dir });
  await run("git", ["add", "--all"], { cwd: dir });
  await run("git", [...id, "commit", "--quiet", "--message", "initial version"], { cwd: dir });
  return dir;
}

/** The setup page, GitHub's part played here: read the form, come back with a code, wait for the App. */
async function serveWithSetup(): Promise<void> {
  const started = performance.now();
  const dir = await mkdtemp(join(home, "serve-"));
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  const pem = key.export({ type: "pkcs1", format: "pem" }).toString();
  const app = {
    id: 123456,
    slug: "autogen-bot-walk",
    html_url: "https://github.com/apps/autogen-bot-walk",
    pem,
    webhook_secret: "walk-webhook-secret-0123456789abcdef",
    client_id: "Iv23liWalk0000000000",
    client_secret: "walk-client-secret-0123456789",
  };
  const state = {
    issue: { title: "", body: "" },
    comments: [],
    pulls: [],
    permissions: {},
    files: {},
    defaultBranch: "main",
    cloneUrl: "",
    manifestConversions: { "code-from-github": app },
  };
  await writeFile(join(dir, "fake-github.json"), JSON.stringify(state));
  const node = join(clone, "node_modules", ".bin", "node");
  const args = ["--import", join(clone, "test/support/fake-github-preload.ts"), join(clone, "bin/autogen.js"), "serve"];
  const env: Record<string, string> = {
    ...baseEnv,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "warn",
    AUTOGEN_DB_PATH: join(dir, "autogen.db"),
    AUTOGEN_TEST_FAKE_GITHUB_STATE: join(dir, "fake-github.json"),
    AUTOGEN_TEST_FAKE_GITHUB_RESULT: join(dir, "fake-github-result.json"),
  };
  const child = spawn(node, args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const lines: string[] = [];
  const seen = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output);
        if (match) resolve(match[1] ?? match[0]);
      };
      child.stdout.on("data", check);
      child.on("exit", () => reject(new Error(`serve exited: ${output}`)));
      check();
    });
  child.stdout.on("data", (d: Buffer) => void (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => void (output += d.toString()));
  let ok = false;
  try {
    const base = await seen(/open (http:\/\/[\d.]+:\d+)/);
    const page = await (await fetch(`${base}/`)).text();
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1]?.replaceAll("&amp;", "&") ?? "";
    lines.push(`setup page ${base}/: a form posting app.yml's manifest to ${action.split("?")[0]}`);
    const stateParam = new URL(action).searchParams.get("state");
    const back = await fetch(`${base}/callback?code=code-from-github&state=${stateParam}`);
    const heading = /<h1>([^<]+)<\/h1>/.exec(await back.text())?.[1] ?? "";
    lines.push(`GitHub's redirect back with ?code=: ${back.status}, "${heading}"`);
    const running = await seen(/listening on (http:\/\/[\d.]+:\d+)/);
    const health = await fetch(`${running}/healthz`);
    lines.push(`the App running: GET ${running}/healthz → ${health.status} ${(await health.text()).slice(0, 80)}`);
    ok = health.status === 200;
  } catch (error) {
    lines.push(`failed: ${(error as Error).message}`);
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("close", resolve));
  }
  const command = `node --import test/support/fake-github-preload.ts bin/autogen.js serve   # in ${dir}`;
  const ms = performance.now() - started;
  const all = `${output}\n${lines.join("\n")}`;
  report("serve → setup page → manifest exchange → running App", command, { ok, ms, output: all });
}

console.log(`newcomer walk in ${home} (from ${source})`);
await step("clone main", "git", ["clone", "--quiet", "--branch", "main", source, clone], home);
await step("install", "npm", ["ci", "--no-audit", "--no-fund"], clone);
await step("demo", "npm", ["run", "demo"], clone);
await step("help", "npx", ["autogen-bot", "help"], clone);

const shop = await gitRepository(join(home, "shop"), {
  "shop/__init__.py": "",
  "shop/shipping.py": [
    "def shipping_cost(total):",
    '    """Orders of 50 or more ship free; smaller ones pay 5."""',
    "    if total > 50:",
    "        return 0",
    "    return 5",
    "",
  ].join("\n"),
  "tests/test_shipping.py": [
    "from shop.shipping import shipping_cost\n\n",
    "def test_small_order_pays():\n    assert shipping_cost(10) == 5\n\n",
    "def test_free_at_50():\n    assert shipping_cost(50) == 0\n\n",
    "def test_large_order_free():\n    assert shipping_cost(80) == 0\n",
  ].join("\n"),
});
const issue = "An order of exactly 50 is charged shipping; the shop says 50 or more ships free";
await step("fix with the issue only", "npx", ["autogen-bot", "fix", shop, "--issue", issue], clone);

await serveWithSetup();

const sample = await gitRepository(join(home, "sample-project"), {
  ".github/workflows/tests.yml": [
    "name: tests",
    "on: [push, pull_request]",
    "jobs:",
    "  test:",
    "    runs-on: ubuntu-latest",
    "    steps:",
    "      - uses: actions/checkout@v4",
    "      - uses: actions/setup-python@v5",
    "        with:",
    '          python-version: "3.12"',
    "      - run: pip install -e .[test]",
    "      - run: pytest -q",
    "",
  ].join("\n"),
});
const copiedItsCi = (r: Run) => r.code === 0 && r.output.includes("Setup steps copied from tests.yml");
await step("init-workflow on a sample repository", "npx", ["autogen-bot", "init-workflow", sample], clone, copiedItsCi);
await step("dashboard demo", "npx", ["autogen-bot", "dashboard", "--demo", "--out", join(home, "dashboard")], clone);

const total = results.reduce((sum, r) => sum + r.ms, 0);
const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(6);
console.log(`\n${results.map((r) => `${r.ok ? "ok    " : "FAILED"} ${seconds(r.ms)} s  ${r.step}`).join("\n")}`);
console.log(`${"".padEnd(6)} ${seconds(total)} s  in all`);
if (!values.keep) await rm(home, { recursive: true, force: true });
else console.log(`kept ${home}`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
