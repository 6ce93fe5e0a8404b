// Red team, host-side reads (shared by test/security/host-reads-cli.test.ts and
// scripts/bench-redteam.ts): a hostile repository's conftest.py turns a context file
// (shop/helpers.py, which the failing test's traceback names) into a symbolic link after
// every test run: to the bot's own environment (/proc/self/environ, read on the host it is
// the bot's, with the canary secrets), to a host file outside the worktree, and to
// /dev/zero. The real `autogen fix` runs as a child process with the canaries in its
// environment and LPW asking a loopback model (so the implement and refine prompts, which
// show the current code, are built). No canary may reach a request to the model, the
// transcript, the report or the output (nor a plain variable of the bot's environment, which
// the scrubber would let through: the read itself must be refused); /dev/zero must not be read.
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  fakeModelServer,
  sendCompletion,
  type FakeModelServer,
  type ReceivedRequest,
} from "../../llm/fake-model-server.ts";
import { gitRepo } from "../../support/git-repo.ts";
import { canaryEnv, findCanaries, isolationLevel, makeCanaries, ROOT, type Canaries } from "./redteam.ts";

export const canaries = makeCanaries();
// Not a secret by name, so the scrubber lets it through: seen anywhere, the bot read its own environment.
export const ENV_MARKER = `RTENVMARKER${Date.now().toString(36)}`;
export const defaultIsolation = await isolationLevel();
export const hasBwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some((p) => existsSync(p));

/** What the model answers, by the stage its response format names: a plan, a verification, an edit that does not fix it, no further change. */
function answer(request: ReceivedRequest): unknown {
  switch (request.response_format?.json_schema?.name) {
    case "plan":
      return { steps: ["Subtract the discount instead of adding it"] };
    case "verify_plan":
      return {
        tests: [
          {
            test: "tests/test_cart.py::test_total_applies_discount",
            steps: [{ step: 1, value: "25" }],
            derived: "25",
            expected: "25",
            matches: true,
          },
        ],
      };
    case "check_verification":
      return { ok: true, problems: [] };
    case "implement":
      return {
        edits: [
          {
            kind: "replace",
            path: "shop/cart.py",
            search: "def total(prices, discount):",
            replace: "def total(prices, discount):  # the cart's total",
          },
        ],
      };
    case "analyze_error":
      return { divergence: "discounted() adds the discount", fix: "subtract it" };
    case "explain":
      return { explanation: "total adds the discount" };
    case "localize":
      return { files: ["shop/cart.py", "shop/helpers.py"] };
    default:
      return { edits: [], noChange: "nothing more to change" };
  }
}

/** The hostile repository: after the first test run of the bot's change, shop/helpers.py becomes a link to `target`. */
function hostileRepo(target: string): Record<string, string> {
  return {
    ".github/autogen.yml":
      'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\nstrategy:\n  name: lpw\n  templateFirstPass: false\n  instrumentedDebug: false\n  maxRefinements: 1\n  maxPlanIterations: 1\n',
    "shop/__init__.py": "",
    "shop/helpers.py":
      "def discounted(subtotal, discount):\n    result = subtotal + discount\n    if result > subtotal:\n        raise ValueError(f'a discount raised the total to {result}')\n    return result\n",
    "shop/cart.py":
      "from shop.helpers import discounted\n\n\ndef total(prices, discount):\n    return discounted(sum(prices), discount)\n",
    "tests/__init__.py": "",
    "tests/test_cart.py":
      "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n",
    "conftest.py": [
      "import os",
      "",
      "import pytest",
      "",
      "",
      "# After each test (a warm runner keeps one pytest session for many runs, so not at session end).",
      "@pytest.fixture(autouse=True)",
      "def swap_helpers():",
      "    yield",
      "    here = os.path.dirname(os.path.abspath(__file__))",
      "    path = os.path.join(here, 'shop', 'helpers.py')",
      "    # The runs before the bot's first change (the baselines) leave the file alone, so the bot takes it into its context.",
      "    if 'the cart' not in open(os.path.join(here, 'shop', 'cart.py')).read():",
      "        return",
      "    try:",
      "        if not os.path.islink(path):",
      "            os.remove(path)",
      `            os.symlink(${JSON.stringify(target)}, path)`,
      "    except OSError as error:",
      "        print('RT-SWAP-FAILED', error)",
      "",
    ].join("\n"),
  };
}

export type Run = {
  code: number | null;
  stdout: string;
  stderr: string;
  requests: ReceivedRequest[];
  transcripts: string;
  report: string;
  repo: string;
  maxRssKb: number;
};

// The CLI runs under python3, which reports the largest resident set of its children when they end.
const RSS_WRAPPER =
  "import resource, subprocess, sys\nr = subprocess.run(sys.argv[2:])\nopen(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\nsys.exit(r.returncode)\n";

export async function attack(
  target: string,
  isolation: string | undefined,
  extraEnv: Record<string, string> = {},
): Promise<Run> {
  const model: FakeModelServer = await fakeModelServer((request, res) =>
    sendCompletion(res, JSON.stringify(answer(request))),
  );
  const repo = await gitRepo(hostileRepo(target));
  const home = mkdtempSync(join(tmpdir(), "autogen-rt-home-"));
  try {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      LANG: "C.UTF-8",
      ...canaryEnv(canaries),
      AUTOGEN_LLM_BASE_URL: model.baseURL,
      RT_PLAIN_VARIABLE: ENV_MARKER,
      ...(isolation ? { AUTOGEN_ISOLATION: isolation } : {}),
      ...extraEnv,
    };
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "python3",
        [
          "-c",
          RSS_WRAPPER,
          join(home, "maxrss"),
          process.execPath,
          join(ROOT, "bin", "autogen.js"),
          "fix",
          repo,
          "--issue",
          "total() adds the discount instead of subtracting it",
          "--json",
        ],
        { env, cwd: repo, timeout: 240_000, maxBuffer: 64 * 1024 * 1024, killSignal: "SIGKILL" },
        (error, stdout, stderr) => {
          const e = error as (Error & { code?: number | string }) | null;
          resolve({ code: e ? (typeof e.code === "number" ? e.code : null) : 0, stdout, stderr });
        },
      );
    });
    const dir = join(repo, ".git", "autogen", "transcripts");
    const transcripts = existsSync(dir)
      ? readdirSync(dir)
          .map((f) => readFileSync(join(dir, f), "utf8"))
          .join("\n")
      : "";
    let report = "";
    try {
      const outcome = JSON.parse(result.stdout) as { report?: string };
      if (outcome.report && existsSync(outcome.report)) report = readFileSync(outcome.report, "utf8");
    } catch {
      report = "";
    }
    const maxRssKb = existsSync(join(home, "maxrss")) ? Number(readFileSync(join(home, "maxrss"), "utf8")) : Number.NaN;
    return { ...result, requests: [...model.requests], transcripts, report, repo, maxRssKb };
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export function leaks(run: Run, canaryValues: Canaries, extra: string[] = []): string[] {
  const places: Record<string, string> = {
    "requests to the model": JSON.stringify(run.requests),
    transcripts: run.transcripts,
    report: run.report,
    stdout: run.stdout,
    stderr: run.stderr,
  };
  const out: string[] = [];
  for (const [where, text] of Object.entries(places)) {
    for (const hit of findCanaries(text, canaryValues)) out.push(`${where}: ${hit}`);
    for (const marker of extra) if (text.includes(marker)) out.push(`${where}: ${marker}`);
  }
  return out;
}

/** The prompts that show the current code (implement, refine, explain) were built, and the swap happened in the sandbox. */
export function attackRan(run: Run): string[] {
  const problems: string[] = [];
  const stages = run.requests.map((r) => r.response_format?.json_schema?.name);
  if (!stages.includes("implement"))
    problems.push(
      `no implement prompt was built (stages: ${stages.join(", ") || "none"}; exit ${run.code}; ${run.stderr.slice(0, 400)})`,
    );
  const sent = JSON.stringify(run.requests);
  if (!sent.includes("--- shop/helpers.py"))
    problems.push("shop/helpers.py was never in the context: the swap would have nothing to hit");
  if (!stages.includes("refine"))
    problems.push(`no refine prompt was built after the swap (stages: ${stages.join(", ")})`);
  return problems;
}

/** The attacks of this file as bench rows: held or broke, with what got through. */
export async function hostReadRows(): Promise<Array<{ attack: string; path: string; held: boolean; detail: string }>> {
  const dir = mkdtempSync(join(tmpdir(), "autogen-rt-hostfile-"));
  const hostFile = join(dir, "root-only.txt");
  const hostCanary = `RTCANARYhostfile${Date.now()}`;
  writeFileSync(hostFile, `a host file the sandbox cannot see: ${hostCanary}\n`);
  chmodSync(hostFile, 0o600);
  const rows: Array<{ attack: string; path: string; held: boolean; detail: string }> = [];
  const judge = (attack: string, run: Run, problems: string[]) => {
    const ran = attackRan(run);
    rows.push({
      attack,
      path: "cli",
      held: ran.length === 0 && problems.length === 0,
      detail: ran.length
        ? `attack did not run: ${ran.join("; ")}`
        : problems.join("; ") || `refused; peak RSS ${Math.round(run.maxRssKb / 1024)} MiB`,
    });
  };
  try {
    for (const isolation of hasBwrap ? ["bwrap", "unshare"] : [undefined]) {
      const run = await attack("/proc/self/environ", isolation);
      judge(
        `a context file swapped for a link to /proc/self/environ mid-run (${isolation ?? defaultIsolation})`,
        run,
        leaks(run, canaries, [ENV_MARKER]),
      );
    }
    const host = await attack(hostFile, undefined);
    judge(
      "a context file swapped for a link to a 0600 host file mid-run",
      host,
      leaks(host, canaries, [hostCanary, ENV_MARKER]),
    );
    const zero = await attack("/dev/zero", undefined);
    judge("a context file swapped for a link to /dev/zero mid-run", zero, [
      ...leaks(zero, canaries),
      ...(zero.maxRssKb >= 500 * 1024 ? [`peak RSS ${Math.round(zero.maxRssKb / 1024)} MiB`] : []),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
