// `npm run bench:runners [name...]`: real projects' own test setups (bench/runners/projects.json),
// each run plainly as the project writes its command and through the bot's runner detection
// in the sandbox. Prints per project: the runner the bot detected, its per-test counts beside
// the runner's own summary, whether one test made to fail by a small injected bug is selected
// alone, and the plain suite's time beside the bot's run and beside the bot's localisation on
// the buggy code (the template strategy's per-test coverage and ranking:
// bench-runners/localise.ts). Snapshots come from fetched mirrors (AUTOGEN_MIRROR, default
// /work/.mirror, one `owner+name/repo` git dir each) or from bench/runners/generated/; they
// are unpacked and their npm dependencies installed under AUTOGEN_BENCH_RUNNERS_DIR (default:
// the temp folder), never in this repository.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { parseRepoConfigText } from "../src/config/parse-repo-config.ts";
import { localVerifier } from "../src/verify/local-verifier.ts";
import { detectRunner } from "../src/verify/runners/detect-runner.ts";
import { sandboxOptionsFor } from "../src/verify/sandbox/sandbox-options.ts";
import { countByStatus, failingTests, type TestReport } from "../src/verify/test-report.ts";
import { localise, type Localisation } from "./bench-runners/localise.ts";
import { ownCounts, type OwnCounts } from "./bench-runners/own-summary.ts";

const projectSchema = z.object({
  name: z.string(),
  repo: z.string().optional(),
  commit: z.string().optional(),
  generated: z.string().optional(),
  command: z.string(),
  runner: z.string(),
  summary: z.enum(["pytest", "unittest", "mocha", "jest", "vitest", "ava", "node-test", "tape", "go-json", "cargo"]),
  /** How to run the suite outside the bot when the command needs a tool this machine lacks (pnpm), or for the runner's own counts (go test -json). */
  plain: z.string().optional(),
  npm: z.boolean().default(false),
  /** Only the runtime dependencies and these packages, when the full devDependencies cannot install here (a version the registry lacks, a tree too large to fetch in time). */
  packages: z.array(z.string()).optional(),
  setup: z.string().optional(),
  /** Why the command differs from the project's own, when it does. */
  note: z.string().optional(),
  bug: z.object({ file: z.string(), from: z.string(), to: z.string() }),
});
type Project = z.infer<typeof projectSchema>;

const root = resolve(import.meta.dirname, "..");
const projects = z
  .array(projectSchema)
  .parse(JSON.parse(readFileSync(join(root, "bench/runners/projects.json"), "utf8")));
const mirror = process.env.AUTOGEN_MIRROR ?? "/work/.mirror";
const cache = process.env.AUTOGEN_BENCH_RUNNERS_DIR ?? join(tmpdir(), "autogen-bench-runners");
const wanted = process.argv.slice(2);
const sandbox = sandboxOptionsFor(parseRepoConfigText("").test);

function prepare(project: Project): string {
  const dir = join(cache, project.name);
  if (existsSync(join(dir, ".bench-ready"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (project.generated) cpSync(join(root, "bench/runners/generated", project.generated), dir, { recursive: true });
  else {
    const gitDir = join(mirror, (project.repo ?? "").replace("/", "+"), "repo");
    if (!existsSync(gitDir)) throw new Error(`no snapshot of ${project.repo ?? "?"} at ${gitDir}: fetch it first`);
    const archive = execFileSync("git", ["--git-dir", gitDir, "archive", project.commit ?? "HEAD"], {
      maxBuffer: 512 * 1024 * 1024,
    });
    execFileSync("tar", ["-x", "-C", dir], { input: archive });
  }
  const install = ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"];
  if (project.packages) {
    // The project's runtime dependencies and the named devDependencies; npm installs
    // package.json's whole tree beside named packages, so it steps aside meanwhile.
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    const runtime = Object.entries(manifest.dependencies ?? {}).map(([name, range]) => `${name}@${range}`);
    project.packages = [...runtime, ...project.packages];
    renameSync(join(dir, "package.json"), join(dir, "package.json.bench"));
    try {
      execFileSync("npm", [...install, "--no-save", ...project.packages], {
        cwd: dir,
        stdio: "inherit",
        timeout: 600_000,
      });
    } finally {
      renameSync(join(dir, "package.json.bench"), join(dir, "package.json"));
    }
  } else if (project.npm) execFileSync("npm", install, { cwd: dir, stdio: "inherit", timeout: 600_000 });
  if (project.setup)
    execFileSync("sh", ["-c", project.setup], { cwd: dir, stdio: "ignore", env: plainEnv(dir), timeout: 600_000 });
  writeFileSync(join(dir, ".bench-ready"), "");
  return dir;
}

function plainEnv(dir: string): NodeJS.ProcessEnv {
  // npm's pre/post scripts (lint, audit over the network) are not the suite.
  return {
    ...process.env,
    PATH: `${join(dir, "node_modules/.bin")}:${process.env.PATH ?? ""}`,
    npm_config_ignore_scripts: "true",
    CI: "1",
    NO_COLOR: "1",
  };
}

function runPlain(project: Project, dir: string): { own: OwnCounts | undefined; seconds: number; exit: number | null } {
  const started = performance.now();
  const run = spawnSync("sh", ["-c", project.plain ?? project.command], {
    cwd: dir,
    env: plainEnv(dir),
    encoding: "utf8",
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  return { own: ownCounts(project.summary, `${run.stdout}\n${run.stderr}`), seconds, exit: run.status };
}

async function runBot(
  dir: string,
  command: string,
  ids?: string[],
): Promise<{ report: TestReport; seconds: number; runner: string }> {
  const runner = detectRunner(dir, command);
  const started = performance.now();
  const report = await localVerifier(runner, botSandbox).run(dir, ids ? { kind: "tests", ids } : { kind: "all" });
  return { report, seconds: (performance.now() - started) / 1000, runner: runner.name };
}

const botSandbox = { ...sandbox, timeoutMs: 600_000 };

function localisationLine(plainSeconds: number, result: Localisation | undefined): string {
  if (!result) return "  localisation: not run (no failing test after the bug)";
  if (result.kind === "not-applicable") return `  localisation: does not apply (${result.reason})`;
  if (result.kind === "failed") return `  localisation: FAILED (${result.reason})`;
  return `  localisation: plain ${plainSeconds.toFixed(1)} s, localisation ${result.seconds.toFixed(1)} s = ${(result.seconds / plainSeconds).toFixed(2)} × plain (load ${result.load}; ${result.detail})`;
}

const fmt = (c: { pass: number; fail: number; skip: number }) =>
  `${String(c.pass)}/${String(c.fail)}/${String(c.skip)}`;

/** The lines of the buggy file the injected bug's text spans (where a fix goes). */
function bugLines(project: Project, original: string): { file: string; lines: number[] } {
  const first = original.slice(0, original.indexOf(project.bug.from)).split("\n").length;
  const count = project.bug.to.replace(/\n$/, "").split("\n").length;
  return { file: project.bug.file, lines: Array.from({ length: count }, (_, i) => first + i) };
}

async function benchOne(project: Project): Promise<{ countsEqual: boolean; selected: boolean; runnerOk: boolean }> {
  const dir = prepare(project);
  const plain = runPlain(project, dir);
  const bot = await runBot(dir, project.command);
  const counts = countByStatus(bot.report.tests);
  const mine = { pass: counts.pass, fail: counts.fail + counts.error, skip: counts.skip };
  const countsEqual = plain.own !== undefined && fmt(plain.own) === fmt(mine);
  const file = join(dir, project.bug.file);
  const original = readFileSync(file, "utf8");
  let selection: string;
  let selected = false;
  let localisation: Localisation | undefined;
  try {
    if (!original.includes(project.bug.from))
      throw new Error(`bug recipe: "${project.bug.from}" not in ${project.bug.file}`);
    writeFileSync(file, original.replace(project.bug.from, project.bug.to));
    const buggy = await runBot(dir, project.command);
    const failing = failingTests(buggy.report);
    const target = failing[0];
    if (!target)
      selection = `no failing test after the bug (${fmt({ ...countByStatus(buggy.report.tests), fail: 0 })}, exit ${String(buggy.report.run.exitCode)})`;
    else {
      const one = await runBot(dir, project.command, [target.id]);
      const got = one.report.tests.map((t) => `${t.status}`);
      selected =
        one.report.tests.length === 1 &&
        one.report.tests[0]?.id === target.id &&
        (got[0] === "fail" || got[0] === "error");
      selection = `${selected ? "yes" : "NO"} ${JSON.stringify(target.id)} of ${String(failing.length)} failing${selected ? "" : ` → ${JSON.stringify(one.report.tests.map((t) => `${t.id}:${t.status}`).slice(0, 3))} exit ${String(one.report.run.exitCode)}`} (${one.seconds.toFixed(1)} s)`;
      const runner = detectRunner(dir, project.command);
      localisation = await localise(
        dir,
        runner,
        localVerifier(runner, botSandbox),
        botSandbox,
        buggy.report,
        bugLines(project, original),
      ).catch((error: unknown) => ({
        kind: "failed" as const,
        reason: error instanceof Error ? error.message.slice(0, 300) : String(error),
      }));
    }
  } catch (error) {
    selection = `error: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`;
  } finally {
    writeFileSync(file, original);
  }
  const runnerOk = bot.runner === project.runner;
  console.log(
    [
      `${project.name} (${project.repo ?? `generated ${project.generated ?? ""}`}${project.commit ? `@${project.commit.slice(0, 7)}` : ""}) \`${project.command}\`${project.note ? ` [${project.note}]` : ""}`,
      `  runner: ${bot.runner}${runnerOk ? "" : ` (expected ${project.runner})`}`,
      `  counts pass/fail/skip: bot ${fmt(mine)}, runner's own ${plain.own ? fmt(plain.own) : "unread"}${plain.own?.note ? ` (${plain.own.note})` : ""} ${countsEqual ? "equal" : "DIFFER"}`,
      `  single failing test selected: ${selection}`,
      `  time: plain ${plain.seconds.toFixed(1)} s (exit ${String(plain.exit)}), bot ${bot.seconds.toFixed(1)} s (exit ${String(bot.report.run.exitCode)}, ${bot.report.source})`,
      localisationLine(plain.seconds, localisation),
    ].join("\n"),
  );
  return { countsEqual, selected, runnerOk };
}

const chosen = projects.filter((p) => wanted.length === 0 || wanted.includes(p.name));
console.log(`${String(chosen.length)} projects; snapshots from ${mirror}, unpacked in ${cache}`);
const totals = { counts: 0, selected: 0, runner: 0, failed: 0 };
for (const project of chosen) {
  try {
    const result = await benchOne(project);
    totals.counts += Number(result.countsEqual);
    totals.selected += Number(result.selected);
    totals.runner += Number(result.runnerOk);
  } catch (error) {
    totals.failed++;
    console.log(
      `${project.name}: not benched: ${error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)}`,
    );
  }
}
const n = String(chosen.length);
console.log(
  `\nrunner as expected ${String(totals.runner)}/${n}, counts equal ${String(totals.counts)}/${n}, failing test selected alone ${String(totals.selected)}/${n}, not benched ${String(totals.failed)}`,
);
