// The red-team scenarios: each builds hostile repositories, runs them through the real
// product path (the `autogen fix` CLI as a child process; the App in
// ./app-harness.ts), and judges every attack: held or broke, with the detail that
// shows why. Shared by test/security/*.test.ts and scripts/bench-redteam.ts.
import { execFile, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildRepo,
  canariesInTree,
  findCanaries,
  hashTree,
  canaryEnv,
  killTagged,
  ROOT,
  lootFiles,
  newContext,
  processesTagged,
  watchTagged,
  removeContext,
  runAutogen,
  tmpPlanted,
  treeChanges,
  evidenceIn,
  type Canaries,
  type CliRun,
  type Context,
  type Evidence,
  type HostListener,
  type RepoSpec,
} from "./redteam.ts";
import {
  envConfig,
  jsCachePoison,
  pyCachePoison,
  jsHostile,
  pyForgedTrace,
  pyWarmProbe,
  pyHang,
  pyHonest,
  pyHostile,
  pyKiller,
  pyResources,
  pySymlinkSource,
} from "./repos.ts";

export type AttackResult = { attack: string; path: string; held: boolean; detail: string };

/** Snapshot of everything outside the worktree a run must not change. */
type Watch = {
  sentinel: Map<string, string>;
  home: Map<string, string>;
  checkout: Map<string, string>;
  gitDir: Map<string, string>;
};

function watch(ctx: Context, repo: string): Watch {
  return {
    sentinel: hashTree(ctx.sentinel),
    home: hashTree(ctx.home, (rel) => rel.startsWith(".local/share/autogen-bot")),
    checkout: hashTree(repo, (rel) => rel === ".git" || rel.startsWith(".git/")),
    // The parts of the real git dir a test could use to run code later; the bot itself adds branches, worktrees and reports.
    gitDir: hashTree(
      join(repo, ".git"),
      (rel) => !(rel === "." || rel === "config" || rel.startsWith("hooks") || rel.startsWith("info")),
    ),
  };
}

function changesSince(ctx: Context, repo: string, before: Watch) {
  const after = watch(ctx, repo);
  return {
    sentinel: treeChanges(before.sentinel, after.sentinel),
    home: treeChanges(before.home, after.home),
    checkout: treeChanges(before.checkout, after.checkout),
    gitDir: treeChanges(before.gitDir, after.gitDir),
  };
}

const git = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", ...args], {
    cwd: repo,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", HOME: "/nonexistent" },
  });

function branches(repo: string): string[] {
  return git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/").trim().split("\n").filter(Boolean);
}

function plantedSecret(ctx: Context) {
  const path = join(ctx.home, ".local", "share", "autogen-bot", "rt-secret.txt");
  return {
    unchanged: () =>
      existsSync(path) && readFileSync(path, "utf8") === `cached credential ${ctx.canaries.WEBHOOK_SECRET}\n`,
    relativeTo: (dir: string) => `${relative(dir, path)}:`,
  };
}

/** Everything a run produced that a canary could hide in. */
function canarySweep(ctx: Context, repo: string | undefined, texts: Record<string, string>): string[] {
  const hits: string[] = [];
  for (const [where, text] of Object.entries(texts))
    for (const h of findCanaries(text, ctx.canaries)) hits.push(`${where}: ${h}`);
  // The harness's own plant (a credential at rest in the bot's data dir) is a canary by design: it counts only if it moved.
  const planted = plantedSecret(ctx);
  for (const dir of [ctx.sentinel, ctx.home, ctx.loot, ...(repo ? [repo] : [])])
    hits.push(
      ...canariesInTree(dir, ctx.canaries)
        .filter((h) => !(planted.unchanged() && h.startsWith(planted.relativeTo(dir))))
        .map((h) => `${dir}/${h}`),
    );
  if (repo)
    for (const h of findCanaries(git(repo, "log", "-p", "--all", "--format=%H %s%n%b"), ctx.canaries))
      hits.push(`git history of the checkout: ${h}`);
  for (const name of tmpPlanted(ctx))
    hits.push(...canariesInTree(join("/tmp", name), ctx.canaries).map((h) => `/tmp/${name}: ${h}`));
  return hits;
}

const wrote = (v: unknown) => typeof v === "string" && v.startsWith("WROTE");
/**
 * A write the test reports as done may have landed in the sandbox's own private /tmp or
 * hidden home (a tmpfs that vanishes with the run): what counts is the host. These are
 * the host trees the write attacks aim at, as changed after the run.
 */
const hostChanges = (o: CliOutcome) => [
  ...o.changes.sentinel.map((c) => `sentinel: ${c}`),
  ...o.changes.home.map((c) => `home: ${c}`),
  ...o.changes.checkout.map((c) => `checkout: ${c}`),
  ...o.tmp.map((c) => `/tmp: ${c}`),
];
const attempted = (results: Record<string, unknown>) =>
  Object.entries(results)
    .filter(([k, v]) => k !== "sandbox_home_bashrc" && wrote(v))
    .map(([k]) => k);
const list = (xs: string[]) => (xs.length ? xs.join("; ") : "none");
const short = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}…` : s);

function parseJson(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf("{\n");
  if (start < 0) return undefined;
  try {
    return JSON.parse(text.slice(start)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

type TestEv = { id: string; status: string; message?: string };
function testsOf(outcome: Record<string, unknown> | undefined): TestEv[] {
  const evidence = (outcome?.evidence ?? {}) as Record<string, { tests?: TestEv[] } | undefined>;
  return Object.values(evidence).flatMap((e) => e?.tests ?? []);
}

/** One CLI scenario: repository built, watched, run, and the common facts gathered. */
export type CliOutcome = {
  ctx: Context;
  repo: string;
  run: CliRun;
  outcome: Record<string, unknown> | undefined;
  report: string;
  evidence: Evidence[];
  changes: ReturnType<typeof changesSince>;
  loot: string[];
  tmp: string[];
  canaries: string[];
  branchesAfter: string[];
};

async function cliScenario(
  label: string,
  canaries: Canaries,
  host: HostListener,
  spec: (ctx: Context) => RepoSpec,
  args: string[],
  timeoutMs = 200_000,
): Promise<CliOutcome> {
  const ctx = newContext(label, canaries, host);
  const repo = buildRepo(ctx, "checkout", spec(ctx));
  const before = watch(ctx, repo);
  const reportPath = join(ctx.root, "out", "report.md");
  // A small budget: the fix takes one or two candidates; a run the attacks confuse must not take the suite's time.
  const run = await runAutogen(
    ctx,
    ["fix", repo, "--strategy", "template", "--candidates", "60", "--minutes", "3", "--report", reportPath, ...args],
    timeoutMs,
  );
  // Whatever a run left behind has had time to write by now; ours to check, then to end.
  await new Promise((r) => setTimeout(r, 1500));
  const report = existsSync(reportPath) ? readFileSync(reportPath, "utf8") : "";
  const outcome = parseJson(run.stdout);
  const all = `${run.stdout}\n${run.stderr}\n${report}`;
  const result: CliOutcome = {
    ctx,
    repo,
    run,
    outcome,
    report,
    evidence: evidenceIn(all),
    changes: changesSince(ctx, repo, before),
    loot: lootFiles(ctx),
    tmp: tmpPlanted(ctx),
    canaries: canarySweep(ctx, repo, { stdout: run.stdout, stderr: run.stderr, report }),
    branchesAfter: branches(repo),
  };
  return result;
}

/** What the harness planted in the bot's HOME and data dir on the host (redteam.ts): seeing it means the hide failed. */
const HOST_CONTENT = /the bot's own \.bashrc|cached credential|SQLite format 3/;

const ev = (o: CliOutcome, attack: string) => o.evidence.filter((e) => e.attack === attack);
const fixedOnBranch = (o: CliOutcome) => o.branchesAfter.some((b) => b.startsWith("autogen/"));

/** Rows every hostile run gets: canaries, the sentinel, HOME, the checkout, /tmp. */
function commonRows(path: string, o: CliOutcome, writeEvidence: Evidence[]): AttackResult[] {
  const ran = writeEvidence.length > 0;
  const notRan = "the attack never reported (it did not run: the result would be vacuous)";
  return [
    {
      attack: "no canary anywhere (output, report, files, history, loot)",
      path,
      held: o.canaries.length === 0,
      detail: list(o.canaries.slice(0, 8)),
    },
    {
      attack: "write to a sentinel tree outside the worktree",
      path,
      held: ran && o.changes.sentinel.length === 0,
      detail: ran ? list(o.changes.sentinel) : notRan,
    },
    {
      attack: "write to the bot's $HOME/.bashrc",
      path,
      held: ran && o.changes.home.length === 0,
      detail: ran ? list(o.changes.home) : notRan,
    },
    {
      attack: "write to the user's original checkout",
      path,
      held: ran && o.changes.checkout.length === 0,
      detail: ran ? list(o.changes.checkout) : notRan,
    },
    { attack: "write to the host's /tmp", path, held: ran && o.tmp.length === 0, detail: ran ? list(o.tmp) : notRan },
  ];
}

function procRows(path: string, o: CliOutcome, canaries: Canaries): AttackResult[] {
  const proc = ev(o, "proc");
  const env = ev(o, "env");
  const ranProc = proc.some(
    (e) =>
      Number(e.cmdline_read) >= 1 &&
      Array.isArray(e.self_environ_names) &&
      (e.self_environ_names as string[]).length > 0,
  );
  const envHits = findCanaries(JSON.stringify(proc.map((e) => e.environ_hits)), canaries);
  const cmdHits = findCanaries(JSON.stringify(proc.map((e) => [e.cmdline_hits, e.cmdlines])), canaries);
  const maxEnv = Math.max(0, ...proc.map((e) => Number(e.environ_read)));
  const maxPids = Math.max(0, ...proc.map((e) => Number(e.pids)));
  return [
    {
      attack: "read /proc/*/environ of every visible process",
      path,
      held: ranProc && envHits.length === 0,
      detail: ranProc
        ? `${proc.length} run(s), up to ${maxPids} pids visible, ${maxEnv} environ files read; canaries: ${list(envHits)}`
        : "the /proc reader never reported",
    },
    {
      attack: "read /proc/*/cmdline of every visible process",
      path,
      held: ranProc && cmdHits.length === 0,
      detail: ranProc
        ? `${Math.max(0, ...proc.map((e) => Number(e.cmdline_read)))} cmdlines read; canaries: ${list(cmdHits)}`
        : "the /proc reader never reported",
    },
    {
      attack: "environment variables",
      path,
      held: env.length > 0 && findCanaries(JSON.stringify(env), canaries).length === 0,
      detail: env.length ? `names: ${(env[0]?.names as string[]).join(",")}` : "never reported",
    },
  ];
}

function daemonRows(path: string, o: CliOutcome, tag: string): AttackResult[] {
  const daemon = ev(o, "daemon");
  const alive = processesTagged(tag);
  killTagged(tag);
  const stolen = o.loot.filter((f) => f.startsWith("daemon-loot"));
  const stash = daemon.map((d) => String(d.previous_stash ?? "")).filter(Boolean);
  const stashSecrets = stash.filter((s) => /=/.test(s));
  return [
    {
      attack: "a forked process outlives the run",
      path,
      held: daemon.length > 0 && alive.length === 0,
      detail: daemon.length
        ? `planted ${daemon.length} time(s); alive afterwards: ${alive.length ? alive.join(",") : "none"}`
        : "the daemon was never planted (vacuous)",
    },
    {
      attack: "a leftover process steals from later runs and the bot's later steps",
      path,
      held: daemon.length > 0 && stolen.length === 0 && stashSecrets.length === 0,
      // Names only: what a leftover process reads on a shared machine may be anyone's.
      detail: `loot: ${list(stolen.map((f) => `${f}: ${stolenSummary(readFileSync(join(o.ctx.loot, f), "utf8"), o.ctx.canaries)}`))}; seen by a later run: ${stash.length ? stolenSummary(stash.at(-1) ?? "", o.ctx.canaries) : "nothing"}`,
    },
  ];
}

/** What a daemon's stash holds, by variable name, and which of our canaries are among it. */
function stolenSummary(text: string, canaries: Canaries): string {
  const names = [
    ...new Set(
      text
        .split("\n")
        .filter((l) => l.includes("="))
        .map((l) => l.split("=")[0]),
    ),
  ];
  return `${names.length} secret-like variable(s) (${short(names.join(","), 120)}); our canaries: ${list(findCanaries(text, canaries))}`;
}

/** The JS attack appends what it stole to the source once the candidate fix is on disk: it must not reach the commit. */
function tamperRow(path: string, o: CliOutcome, history: string, where: string): AttackResult {
  const tamper = ev(o, "tamper");
  const appended = tamper.filter((t) => String(t.result).startsWith("APPENDED")).length;
  const hits = findCanaries(history, o.ctx.canaries);
  return {
    attack: TAMPER,
    path,
    held: appended > 0 && hits.length === 0,
    detail:
      appended > 0
        ? `appended in ${appended}/${tamper.length} reported run(s); canaries in ${where}: ${list(hits)}`
        : `never appended (${[...new Set(tamper.map((t) => String(t.result)))].join(" / ") || "never reported"}): vacuous`,
  };
}

function egressRow(path: string, o: CliOutcome): AttackResult {
  const egress = ev(o, "egress");
  const connected = egress.filter((e) => String(e.host_ip).startsWith("CONNECTED"));
  return {
    attack: "connect to a non-loopback address (this host's own, a listener outside)",
    path,
    held: egress.length > 0 && connected.length === 0,
    detail: egress.length
      ? `${o.ctx.host.ip}:${o.ctx.host.port}: ${short(JSON.stringify(egress.map((e) => ({ host_ip: e.host_ip, public: e.public, dns: e.dns }))[0]), 300)}`
      : "never reported",
  };
}

function lootRow(
  path: string,
  attack: string,
  o: CliOutcome,
  prefix: RegExp,
  precondition: { ok: boolean; why: string },
): AttackResult {
  const fired = o.loot.filter((f) => prefix.test(f));
  return {
    attack,
    path,
    held: precondition.ok && fired.length === 0,
    detail: fired.length ? `ran: ${fired.join(", ")}` : precondition.ok ? "none ran" : precondition.why,
  };
}

// ---------------------------------------------------------------- the CLI scenarios

export async function pyHostileCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = "cli py";
  const o = await cliScenario("py", canaries, host, () => pyHostile(), [
    "--test",
    "tests/test_calc.py::test_add",
    "--json",
  ]);
  try {
    const committed = {
      ok: fixedOnBranch(o),
      why: `the bot never reached its commit (exit ${o.run.code}): ${short(o.run.stderr, 300)}`,
    };
    const gitEv = ev(o, "git");
    const planted = gitEv.flatMap((e) =>
      Object.entries(e)
        .filter(([k, v]) => /^(hook:|config|info\/attributes|program)/.test(k) && wrote(v))
        .map(([k]) => k),
    );
    const dataDir = ev(o, "datadir");
    // Only the host's own content counts: the sandbox's hidden home is an empty tmpfs a test may fill itself.
    const dataRead = dataDir.flatMap((e) =>
      Object.entries(e.found as Record<string, string>)
        .filter(([, v]) => !/^UN(READABLE|LISTABLE)/.test(v) && HOST_CONTENT.test(v))
        .map(([k]) => k),
    );
    const conftest = ev(o, "conftest");
    const setupcfg = ev(o, "setupcfg");
    return [
      ...procRows(path, o, canaries),
      {
        attack: "read the bot's data dir and HOME",
        path,
        held: dataDir.length > 0 && dataRead.length === 0,
        detail: dataDir.length ? `read: ${list([...new Set(dataRead)].slice(0, 6))}` : "never reported",
      },
      ...commonRows(path, o, ev(o, "write")),
      {
        attack: "plant hooks/config/info/attributes in the real .git",
        path,
        held: gitEv.length > 0 && planted.length === 0 && o.changes.gitDir.length === 0,
        detail: gitEv.length
          ? `written by a test: ${list([...new Set(planted)])}; .git changes: ${list(o.changes.gitDir.slice(0, 6))}`
          : "never reported",
      },
      lootRow(
        path,
        "planted hooks run by the bot's own git (post-checkout, post-commit, reference-transaction, ...)",
        o,
        /^hook-/,
        committed,
      ),
      lootRow(
        path,
        "core.fsmonitor / gpg.program run by the bot's own git",
        o,
        /^program-(fsmonitor|gpg|pager|editor|askpass|ssh|credential)/,
        committed,
      ),
      lootRow(
        path,
        ".gitattributes / info/attributes filter driver run by git",
        o,
        /^program-(filter|textconv)/,
        committed,
      ),
      {
        attack: "conftest.py writes outside the worktree",
        path,
        held: conftest.length > 0 && hostChanges(o).length === 0,
        detail: conftest.length
          ? `host changed: ${list(hostChanges(o))} (the test believed it wrote: ${list([...new Set(conftest.flatMap((c) => attempted(c.writes as Record<string, unknown>)))])})`
          : "conftest.py never reported",
      },
      {
        attack: "setup.cfg addopts plugin writes outside the worktree",
        path,
        held: setupcfg.length > 0 && hostChanges(o).length === 0,
        detail: setupcfg.length
          ? `host changed: ${list(hostChanges(o))} (the test believed it wrote: ${list([...new Set(setupcfg.flatMap((c) => attempted(c.writes as Record<string, unknown>)))])})`
          : "the setup.cfg plugin never reported",
      },
      egressRow(path, o),
      ...daemonRows(path, o, `RTDAEMON-${o.ctx.id}`),
    ];
  } finally {
    removeContext(o.ctx);
  }
}

export async function jsHostileCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = "cli js";
  // No --test: the failing test (named after what it stole) is found by the baseline run.
  const o = await cliScenario("js", canaries, host, () => jsHostile(), ["--json"]);
  try {
    const swap = ev(o, "gitswap");
    const swapped = swap.filter((s) => s.removed_pointer === "REMOVED");
    const tests = testsOf(o.outcome);
    const honest = ["honest http server on 127.0.0.1", "honest http server on ::1"].map((name) => ({
      name,
      runs: tests.filter((t) => t.id.endsWith(name)),
    }));
    const programs = o.loot.filter((f) => /^(hook|program)-/.test(f));
    return [
      ...procRows(path, o, canaries),
      ...commonRows(path, o, ev(o, "write")),
      {
        attack: "replace the worktree's .git file with a directory holding a malicious config",
        path,
        held: swap.length > 0 && programs.length === 0 && fixedOnBranch(o),
        detail: swap.length
          ? `pointer removed in ${swapped.length}/${swap.length} reported run(s) (${[...new Set(swap.map((x) => String(x.removed_pointer ?? x.error)))].join(" / ")}); hooks/programs run: ${list(programs)}; fix on a branch of the user's repository: ${fixedOnBranch(o) ? "yes" : `no (bot exit ${o.run.code}, ${short(o.run.stderr || String((o.outcome ?? {}).message ?? ""), 200)})`}`
          : "never reported",
      },
      tamperRow(
        path,
        o,
        git(o.repo, "log", "-p", "--all", "--format=%H %s%n%b"),
        "the branch's history in the checkout",
      ),
      lootRow(path, "package.json lifecycle scripts (pre/post test, install, prepare) run", o, /^lifecycle-/, {
        ok: true,
        why: "",
      }),
      egressRow(path, o),
      ...honest.map(({ name, runs }) => ({
        attack: `honest test: HTTP server on ${name.split(" on ")[1]} works in the sandbox`,
        path,
        held:
          runs.some((t) => t.status === "pass") &&
          runs.every(
            (t) => t.status === "pass" || (t.status === "skip" && /does not match pattern/.test(t.message ?? "")),
          ),
        detail: runs.length
          ? runs.map((t) => `${t.status}${t.message ? ` (${short(t.message, 120)})` : ""}`).join(", ")
          : "the test never ran",
      })),
      ...daemonRows(path, o, `RTDAEMON-${o.ctx.id}`),
    ];
  } finally {
    removeContext(o.ctx);
  }
}

export async function pyHonestCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = "cli py";
  const o = await cliScenario("honest", canaries, host, () => pyHonest(), ["--json"]);
  try {
    // The control: the same suite outside the sandbox passes its local tests.
    const outside = spawnSync("python3", ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_local.py"], {
      cwd: o.repo,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: o.ctx.home },
    });
    const tests = testsOf(o.outcome);
    const rows: AttackResult[] = [];
    for (const name of [
      "test_http_server_ipv4_loopback",
      "test_http_server_ipv6_loopback",
      "test_localhost_name_resolves_to_loopback",
      "test_socketpair_tempfile_subprocess",
    ]) {
      const runs = tests.filter((t) => t.id.endsWith(`::${name}`));
      rows.push({
        attack: `honest test ${name} passes in the sandbox as outside`,
        path,
        held: outside.status === 0 && runs.length > 0 && runs.every((t) => t.status === "pass"),
        detail: `outside: ${outside.status === 0 ? "pass" : `FAIL ${short(outside.stdout, 200)}`}; inside: ${runs.length ? runs.map((t) => `${t.status}${t.message ? ` (${short(t.message, 100)})` : ""}`).join(", ") : "never ran"}`,
      });
    }
    rows.push({
      attack: "honest repository still gets its fix",
      path,
      held: o.outcome?.status === "fixed",
      detail: `status ${String(o.outcome?.status)}: ${short(String(o.outcome?.message ?? o.run.stderr), 200)}`,
    });
    return rows;
  } finally {
    removeContext(o.ctx);
  }
}

export async function killerCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = "cli py";
  let tag = "";
  const o = await cliScenario("killer", canaries, host, (ctx) => pyKiller((tag = `RTSURVIVOR-${ctx.id}`)), []);
  try {
    const alive = processesTagged(tag);
    killTagged(tag);
    return [
      {
        attack: "a test kills its parent and the bot",
        path,
        held:
          o.run.signal === null &&
          typeof o.run.code === "number" &&
          /autogen fix:|not fixed|fixed/.test(o.run.stdout + o.run.stderr),
        detail: `bot exit ${o.run.code} signal ${o.run.signal}: ${short((o.run.stderr || o.run.stdout).trim(), 200)}`,
      },
      {
        attack: "a process started by a killing test outlives the run",
        path,
        held: alive.length === 0,
        detail: alive.length ? `alive: ${alive.join(",")}` : "none alive",
      },
    ];
  } finally {
    removeContext(o.ctx);
  }
}

export async function resourcesCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = "cli py";
  const o = await cliScenario("resources", canaries, host, () => pyResources(), [
    "--test",
    "tests/test_calc.py::test_add",
    "--json",
  ]);
  try {
    const bomb = ev(o, "forkbomb");
    const flood = ev(o, "diskflood");
    const said = `${o.run.stdout}\n${o.run.stderr}\n${o.report}`;
    const procMessage = /(process|pids?|fork)[^\n]{0,40}limit|limit[^\n]{0,40}(process|pids?)/i.test(said);
    const diskMessage =
      /(disk|space|written|file size)[^\n]{0,40}(limit|cap)|(limit|cap)[^\n]{0,40}(disk|space|written)/i.test(said);
    return [
      {
        attack: "fork bomb (1,000 processes) is bounded",
        path,
        held: bomb.length > 0 ? bomb.every((b) => Number(b.forked) < Number(b.attempted)) : procMessage,
        detail: bomb.length
          ? bomb.map((b) => `forked ${b.forked}/${b.attempted}${b.error ? ` then ${String(b.error)}` : ""}`).join("; ")
          : `run ended before reporting; limit named in the output: ${procMessage}`,
      },
      {
        attack: "disk flood (256 files, 4 GiB in all) is bounded",
        path,
        held: flood.length > 0 ? flood.every((f) => Number(f.written_bytes) < Number(f.attempted_bytes)) : diskMessage,
        detail: flood.length
          ? flood
              .map(
                (f) =>
                  `wrote ${Math.round(Number(f.written_bytes) / 2 ** 20)} MiB of ${Math.round(Number(f.attempted_bytes) / 2 ** 20)} MiB${f.error ? ` then ${String(f.error)}` : ""}`,
              )
              .join("; ")
          : `run ended before reporting; limit named in the output: ${diskMessage}`,
      },
    ];
  } finally {
    removeContext(o.ctx);
  }
}

export async function hangCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = "cli py";
  let tag = "";
  const o = await cliScenario("hang", canaries, host, (ctx) => pyHang((tag = `RTHANG-${ctx.id}`)), [], 200_000);
  try {
    // What the bot said: its output and the report it wrote.
    const said = `${o.run.stdout}\n${o.run.stderr}\n${o.report}`;
    const alive = processesTagged(tag);
    killTagged(tag);
    return [
      // Stopped by the run's 1-minute limit, or (every run has a per-test limit, a fifth of the run's) as the failing test it is, named with its time.
      {
        attack: 'a test sleeping past the 1-minute limit: the bot says "timed out after 60 s"',
        path,
        held: /timed out after 60 ?s|timed out after \d+(\.\d+)? s in tests\/test_hang\.py::test_sleeps_forever/.test(
          said,
        ),
        detail: `after ${Math.round(o.run.ms / 1000)} s: ${short(said.trim(), 240)}`,
      },
      {
        attack: "the timed-out test's processes are gone",
        path,
        held: alive.length === 0,
        detail: alive.length ? `alive: ${alive.join(",")}` : "none alive",
      },
    ];
  } finally {
    removeContext(o.ctx);
  }
}

export async function envConfigCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const rows: AttackResult[] = [];
  for (const variable of ["NODE_OPTIONS", "PYTHONSTARTUP"] as const) {
    let value = "";
    const o = await cliScenario(
      `env-${variable.toLowerCase()}`,
      canaries,
      host,
      (ctx) =>
        envConfig(
          variable,
          (value =
            variable === "NODE_OPTIONS"
              ? `--require ${join(ctx.root, "checkout", "evil.cjs")}`
              : join(ctx.root, "checkout", "evil.py")),
        ),
      ["--json"],
      120_000,
    );
    try {
      const said = `${o.run.stdout}\n${o.run.stderr}`;
      const ran = o.loot.includes("envconfig.txt");
      const path = variable === "NODE_OPTIONS" ? "cli js" : "cli py";
      const crashed = /\n\s+at [^\n]+\(file:/.test(said);
      rows.push(
        {
          attack: `${variable} set through the repository config never runs the repository's code`,
          path,
          held: !ran && o.run.signal === null,
          detail: `${variable}=${short(value, 60)}: ${ran ? "its code ran" : "did not run"}`,
        },
        {
          attack: `${variable} set through the repository config is refused with a clear message (not a crash)`,
          path,
          held: said.includes(variable) && !crashed && o.run.code === 2,
          detail: `bot exit ${o.run.code}${crashed ? " with an uncaught exception and stack trace" : ""}: ${short(said.trim().split("\n").slice(0, 2).join(" "), 200)}`,
        },
      );
    } finally {
      removeContext(o.ctx);
    }
  }
  return rows;
}

export async function symlinkCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = "cli py";
  const o = await cliScenario(
    "symlink",
    canaries,
    host,
    (ctx) => {
      const victim = join(ctx.sentinel, "victim_calc.py");
      writeFileSync(victim, "def add(a, b):\n    return a - b\n");
      return { ...pySymlinkSource(), links: { "calc.py": victim } };
    },
    ["--json"],
  );
  try {
    const victim = o.changes.sentinel.filter((c) => c.includes("victim_calc.py"));
    return [
      {
        attack: "a source file symlinked outside the repository is never edited through the link",
        path,
        held: victim.length === 0,
        detail: `sentinel changes: ${list(o.changes.sentinel)}; bot said: ${short(String(o.outcome?.message ?? o.run.stderr), 160)}; branches: ${o.branchesAfter.join(",")}`,
      },
    ];
  } finally {
    removeContext(o.ctx);
  }
}

export async function forgedTraceCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = "cli py";
  let victim = "";
  const o = await cliScenario(
    "forged",
    canaries,
    host,
    (ctx) => {
      victim = join(ctx.sentinel, "victim_forged.py");
      writeFileSync(victim, "def add(a, b):\n    return a - b\n");
      return pyForgedTrace(victim);
    },
    ["--json"],
  );
  try {
    const localisation = (
      (o.outcome?.plan as { localisation?: Array<{ file: string; line: number }> } | undefined)?.localisation ?? []
    ).map((l) => `${l.file}:${l.line}`);
    const forged = localisation.filter((l) => l.includes("victim_forged"));
    const touched = o.changes.sentinel.filter((c) => c.includes("victim_forged"));
    return [
      {
        attack: "a forged coverage path outside the worktree is never edited",
        path,
        held: touched.length === 0,
        detail: `sentinel: ${list(touched)}; localisation took the forged path: ${forged.length ? forged.join(", ") : "no"}; top lines: ${localisation.slice(0, 3).join(", ")}; attempts ${(o.outcome?.attempts as unknown[] | undefined)?.length ?? 0}`,
      },
    ];
  } finally {
    removeContext(o.ctx);
  }
}

/**
 * The controls, outside any sandbox: the planted hooks and programs fire on plain git
 * running the bot's own commands (worktree, switch --create, add, commit --no-verify,
 * push), url.insteadOf redirects the push, and the /proc reader finds a secret in another
 * process's environment. Without them a "held" could mean an attack that never works.
 */
export function controls(canaries: Canaries, host: HostListener): AttackResult[] {
  const ctx = newContext("control", canaries, host);
  try {
    const repo = buildRepo(ctx, "checkout", { ...pyHostile(), pushUrl: join(ctx.root, "remote.git") });
    execFileSync("git", ["clone", "--quiet", "--bare", repo, join(ctx.root, "remote.git")]);
    const tree = join(ctx.root, "worktree");
    const plain = (cwd: string, ...args: string[]) =>
      spawnSync("git", args, {
        cwd,
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ctx.home, GIT_CONFIG_NOSYSTEM: "1" },
      });
    plain(repo, "worktree", "add", "--detach", tree, "HEAD");
    const planted = spawnSync("python3", ["-c", "import sys, rtlib; print(rtlib.plant_git(sys.argv[1]))", tree], {
      cwd: repo,
      encoding: "utf8",
    });
    writeFileSync(join(tree, "calc.py"), "def add(a, b):\n    return a + b\n");
    plain(tree, "switch", "--create", "autogen/control");
    plain(tree, "add", "--", "calc.py");
    plain(
      tree,
      "-c",
      "user.name=c",
      "-c",
      "user.email=c@example.invalid",
      "commit",
      "--no-verify",
      "--message",
      "control",
    );
    plain(tree, "push", join(ctx.root, "remote.git"), "HEAD:refs/heads/autogen/control");
    const loot = lootFiles(ctx);
    const expected = [
      "hook-post-checkout.txt",
      "hook-post-commit.txt",
      "hook-reference-transaction.txt",
      "hook-pre-push.txt",
      "program-fsmonitor.txt",
      "program-gpg.txt",
      "program-filter-clean.txt",
    ];
    const missing = expected.filter((f) => !loot.includes(f));
    const redirected = spawnSync("git", ["--git-dir", ctx.attackerRemote, "for-each-ref"], {
      encoding: "utf8",
    }).stdout.trim();
    const secret = `RTCANARYcontrol${Date.now()}`;
    const victim = spawn("sleep", ["20"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", RT_CONTROL_TOKEN: secret },
      stdio: "ignore",
    });
    let read = "";
    try {
      read = spawnSync("python3", ["-c", "import json, rtlib; print(json.dumps(rtlib.scan_proc()))"], {
        cwd: repo,
        encoding: "utf8",
      }).stdout;
    } finally {
      victim.kill("SIGKILL");
    }
    return [
      {
        attack: "control: the /proc reader finds a secret in another process's environ",
        path: "control",
        held: read.includes(secret),
        detail: read.includes(secret) ? `found it (pid ${victim.pid})` : short(read, 200),
      },
      {
        attack: "control: planted hooks and programs fire on plain git (same commands as the bot)",
        path: "control",
        held: missing.length === 0,
        detail: missing.length
          ? `did not fire: ${missing.join(", ")}; planting said ${short(planted.stdout + planted.stderr, 300)}`
          : `fired: ${loot.join(", ")}`,
      },
      {
        attack: "control: url.insteadOf planted in the config redirects a plain push",
        path: "control",
        held: redirected.includes("autogen/control"),
        detail: redirected ? `attacker repository got: ${redirected}` : "no redirect",
      },
    ];
  } finally {
    removeContext(ctx);
  }
}

/** The control for the egress row: the listener is reachable from the host itself. */
export async function egressControl(host: HostListener): Promise<AttackResult> {
  const r = await new Promise<string>((resolve) =>
    execFile(
      "python3",
      [
        "-c",
        "import socket,sys; s=socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3); print(s.recv(64).decode())",
        host.ip,
        String(host.port),
      ],
      { timeout: 10_000 },
      (_e, stdout, stderr) => resolve(`${stdout}${stderr}`),
    ),
  );
  return {
    attack: `control: ${host.ip}:${host.port} is reachable outside the sandbox`,
    path: "control",
    held: r.includes("RT-EGRESS-OK"),
    detail: short(r.trim(), 200),
  };
}

// ---------------------------------------------------------------- installs

/**
 * The install cache through the CLI: a hostile repository copies another's package.json and
 * package-lock.json, and its postinstall plants a package (and what it could read) in
 * node_modules; later the user runs the bot on the other repository on the same machine.
 */
async function cachePoisonCli(kind: "js" | "py", canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = `cli ${kind}`;
  const ctx = newContext(`poison-${kind}`, canaries, host);
  const repo = kind === "js" ? jsCachePoison : pyCachePoison;
  const manager = kind === "js" ? "npm" : "pip";
  try {
    const attacker = buildRepo(ctx, "attacker", repo("attacker"));
    const victim = buildRepo(ctx, "victim", repo("victim"));
    const before = {
      sentinel: hashTree(ctx.sentinel),
      home: hashTree(ctx.home, (rel) => rel.startsWith(".local/share/autogen-bot")),
    };
    const args = (repo: string) => [
      "fix",
      repo,
      "--strategy",
      "template",
      "--candidates",
      "20",
      "--minutes",
      "3",
      "--json",
    ];
    const a = await runAutogen(ctx, args(attacker));
    const v = await runAutogen(ctx, args(victim));
    const deps = (r: CliRun) =>
      (parseJson(r.stdout)?.dependencies ?? undefined) as
        { source?: string; ok?: boolean; notCached?: string } | undefined;
    const shown = (r: CliRun) => {
      const d = deps(r);
      return d
        ? `${String(d.source)}${d.ok ? "" : " (failed)"}${d.notCached ? `, not cached: ${d.notCached}` : ""}`
        : `no install (exit ${String(r.code)}: ${short(r.stderr, 160)})`;
    };
    const published = deps(a)?.source === "fresh" && deps(a)?.ok === true && !deps(a)?.notCached;
    const probe = testsOf(parseJson(v.stdout)).filter((t) => /no[ _]planted[ _]package$/.test(t.id));
    const planted = probe.filter((t) => t.status !== "pass" && /PLANTED-FROM-CACHE/.test(t.message ?? ""));
    const secret = plantedSecret(ctx);
    const outside = [
      ...treeChanges(before.sentinel, hashTree(ctx.sentinel)).map((c) => `sentinel: ${c}`),
      ...treeChanges(
        before.home,
        hashTree(ctx.home, (rel) => rel.startsWith(".local/share/autogen-bot")),
      ).map((c) => `home: ${c}`),
      ...lootFiles(ctx),
      ...(secret.unchanged() ? [] : ["the data dir's rt-secret.txt"]),
    ];
    const stolen = canariesInTree(ctx.home, canaries).filter((h) => !h.startsWith(secret.relativeTo(ctx.home)));
    const ran =
      deps(a)?.source === "fresh" &&
      (parseJson(a.stdout)?.dependencies as { manager?: string } | undefined)?.manager === manager;
    return [
      {
        attack:
          "an install script plants a package that another repository with the same lockfile gets from the install cache",
        path,
        held: published && probe.length > 0 && planted.length === 0,
        detail: `attacker's install: ${shown(a)}; victim's: ${shown(v)}; probe: ${probe.map((t) => `${t.status}${t.message ? ` (${short(t.message, 80)})` : ""}`).join(", ") || "never ran"}`,
      },
      {
        attack: "an install script writes outside the worktree and its cache entry",
        path,
        held: ran && outside.length === 0,
        detail: ran ? list(outside) : "the install never ran (vacuous)",
      },
      {
        attack:
          "an install script reads the bot's secrets (environment, /proc/*/environ, data dir) into what is cached",
        path,
        held: ran && stolen.length === 0,
        detail: ran ? list(stolen.slice(0, 6)) : "the install never ran (vacuous)",
      },
    ];
  } finally {
    removeContext(ctx);
  }
}

export const jsCachePoisonCli = (canaries: Canaries, host: HostListener) => cachePoisonCli("js", canaries, host);
export const pyCachePoisonCli = (canaries: Canaries, host: HostListener) => cachePoisonCli("py", canaries, host);

// ---------------------------------------------------------------- warm runners

/**
 * A test run by the warm pytest runner (candidates' runs) starts a detached process and
 * probes the bot's socket and other slots; the host watches for the tagged process while
 * the bot runs (its command line says what the probe found) and after it ended.
 */
export async function warmProbeCli(canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = "cli py";
  let tag = "";
  let watcher: ReturnType<typeof watchTagged> | undefined;
  let seen = new Map<number, string>();
  let o: CliOutcome | undefined;
  try {
    o = await cliScenario(
      "warm",
      canaries,
      host,
      (ctx) => {
        tag = `RTWARMD-${ctx.id}`;
        watcher = watchTagged(tag, join(ctx.root, "warm-seen.tsv"));
        return pyWarmProbe(tag);
      },
      ["--test", "tests/test_calc.py::test_add", "--json"],
    );
  } finally {
    if (watcher) seen = await watcher.stop();
  }
  try {
    const alive = processesTagged(tag);
    killTagged(tag);
    const found = [...seen.values()];
    const field = (name: string) => [...new Set(found.map((c) => c.match(new RegExp(`${name}=(\\S+)`))?.[1] ?? "?"))];
    const planted = found.length > 0;
    const attempts = Array.isArray(o.outcome?.attempts) ? o.outcome.attempts.length : "?";
    const vacuous = `no warm-runner test ever started its process (the warm runner did not run it: vacuous); the run: ${String(o.outcome?.stopReason ?? o.outcome?.status ?? `no outcome, exit ${String(o.run.code)}`)} after ${String(attempts)} attempts: ${short(String(o.outcome?.message ?? o.run.stderr.slice(-400)), 300)}`;
    return [
      {
        attack: "a process a warm-runner test starts outlives the slot",
        path,
        held: planted && alive.length === 0,
        detail: planted
          ? `seen ${String(seen.size)} while the bot ran; alive afterwards: ${alive.length ? alive.join(",") : "none"}`
          : vacuous,
      },
      {
        attack: "a warm-runner test sees other slots or talks to the bot's socket on a second connection",
        path,
        held:
          planted && field("others").every((n) => n === "0") && field("second").every((s) => s !== "connected-open"),
        detail: planted
          ? `other slots' directories visible: ${field("others").join("/")}; second connection: ${field("second").join("/")}`
          : vacuous,
      },
      {
        attack: "no canary anywhere after warm runs (output, report, files, history, loot)",
        path,
        held: o.canaries.length === 0,
        detail: list(o.canaries.slice(0, 8)),
      },
    ];
  } finally {
    removeContext(o.ctx);
  }
}

// ---------------------------------------------------------------- the App path

/** A hostile repository through the App: webhook → job → RepoCache mirror and worktree → local verifier → commitAndPush → PR. */
async function hostileApp(kind: "py" | "js", canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = `app ${kind}`;
  const ctx = newContext(`app-${kind}`, canaries, host);
  try {
    const remote = join(ctx.root, "remote.git");
    const repo = buildRepo(ctx, "checkout", { ...(kind === "py" ? pyHostile() : jsHostile()), pushUrl: remote });
    const before = watch(ctx, repo);
    const inputPath = join(ctx.root, "app-input.json");
    const outputPath = join(ctx.root, "app-output.json");
    writeFileSync(
      inputPath,
      JSON.stringify({ checkout: repo, root: ctx.root, remote, installationToken: canaries.INSTALLATION_TOKEN }),
    );
    const harness = fileURLToPath(new URL("./app-harness.ts", import.meta.url));
    const started = Date.now();
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [harness, inputPath, outputPath],
        {
          cwd: ROOT,
          timeout: 240_000,
          killSignal: "SIGKILL",
          maxBuffer: 64 * 1024 * 1024,
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: ctx.home,
            LANG: "C.UTF-8",
            ...canaryEnv(canaries),
            ...(process.env.AUTOGEN_ISOLATION ? { AUTOGEN_ISOLATION: process.env.AUTOGEN_ISOLATION } : {}),
          },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      ),
    );
    await new Promise((r) => setTimeout(r, 1500));
    if (!existsSync(outputPath))
      return [
        {
          attack: "the App scenario itself",
          path,
          held: false,
          detail: `harness exit ${run.code} after ${Math.round((Date.now() - started) / 1000)} s: ${short(run.stderr, 600)}`,
        },
      ];
    const out = JSON.parse(readFileSync(outputPath, "utf8")) as {
      comments: Array<{ body: string }>;
      pulls: Array<{ body: string; head: string }>;
      remoteRefs: string[];
      history: string;
      job?: { state: string; error?: string; checkpoint: Record<string, unknown> };
      githubErrors: string[];
    };
    const outcomeText = JSON.stringify(out.job?.checkpoint ?? {});
    const o: CliOutcome = {
      ctx,
      repo,
      run: { code: run.code, signal: null, stdout: run.stdout, stderr: run.stderr, ms: Date.now() - started },
      outcome: (out.job?.checkpoint.outcome as Record<string, unknown> | undefined) ?? undefined,
      report: out.pulls.map((p) => p.body).join("\n"),
      evidence: evidenceIn(outcomeText),
      changes: changesSince(ctx, repo, before),
      loot: lootFiles(ctx),
      tmp: tmpPlanted(ctx),
      canaries: canarySweep(ctx, repo, {
        "PR bodies": out.pulls.map((p) => p.body).join("\n"),
        "comment bodies": out.comments.map((c) => c.body).join("\n"),
        "pushed history": out.history,
        "job record": outcomeText,
        "App logs and harness output": `${run.stdout}\n${run.stderr}`,
      }).concat(
        canariesInTree(join(ctx.root, "jobs.db"), canaries).map((h) => `job store: ${h}`),
        canariesInTree(join(ctx.root, "cache"), canaries).map((h) => `repository cache: ${h}`),
      ),
      branchesAfter: [],
    };
    const pushed = out.remoteRefs.includes("refs/heads/autogen/issue-42");
    const attackerRefs = spawnSync("git", ["--git-dir", ctx.attackerRemote, "for-each-ref", "--format=%(refname)"], {
      encoding: "utf8",
    }).stdout.trim();
    const precondition = {
      ok: pushed || attackerRefs !== "",
      why: `the bot never pushed (job ${out.job?.state}: ${short(out.job?.error ?? "", 200)})`,
    };
    const token = { INSTALLATION_TOKEN: canaries.INSTALLATION_TOKEN } as unknown as Canaries;
    const tokenInLoot = o.loot.filter((f) => findCanaries(readFileSync(join(ctx.loot, f), "latin1"), token).length > 0);
    const tokenInEvidence = findCanaries(JSON.stringify(o.evidence), token);
    const prePush = o.loot.filter((f) => f === "hook-pre-push.txt");
    const published = findCanaries(
      [...out.pulls.map((p) => p.body), ...out.comments.map((c) => c.body)].join("\n"),
      canaries,
    );
    const shared = [
      ...procRows(path, o, canaries),
      ...commonRows(path, o, ev(o, "write")),
      {
        attack: "a secret reaches the PR body or a comment (raw or base64)",
        path,
        held: out.pulls.length + out.comments.length > 0 && published.length === 0,
        detail:
          out.pulls.length + out.comments.length
            ? `${out.pulls.length} PR body(ies), ${out.comments.length} comment(s); found: ${list(published)}`
            : "nothing was published (vacuous)",
      },
      {
        attack: "the installation token is never visible to a test (or what it planted)",
        path,
        held: tokenInEvidence.length === 0 && tokenInLoot.length === 0,
        detail: `in test output: ${list(tokenInEvidence)}; in what escaped: ${list(tokenInLoot)}`,
      },
      {
        attack: "no canary anywhere (PR body, comments, pushed history, logs, job store, cache)",
        path,
        held: o.canaries.length === 0,
        detail: list(o.canaries.slice(0, 8)),
      },
      egressRow(path, o),
      ...daemonRows(path, o, `RTDAEMON-${ctx.id}`),
      {
        attack: "the App job completes (a PR is opened)",
        path,
        held: out.pulls.length === 1 && out.githubErrors.length === 0,
        detail: `job ${out.job?.state}${out.job?.error ? `: ${short(out.job.error, 200)}` : ""}; PRs ${out.pulls.length}; fake GitHub errors: ${list(out.githubErrors)}`,
      },
    ];
    const rename = (r: AttackResult) =>
      r.attack.startsWith("no canary anywhere (output")
        ? { ...r, attack: "no canary in the checkout's files and history, sentinel, HOME, loot" }
        : r;
    if (kind === "js") {
      const swap = ev(o, "gitswap");
      const programs = o.loot.filter((f) => /^(hook|program)-/.test(f));
      return [
        ...shared,
        tamperRow(path, o, out.history, "the pushed history"),
        {
          attack: "replace the worktree's .git file with a directory holding a malicious config",
          path,
          held: swap.length > 0 && programs.length === 0 && pushed,
          detail: swap.length
            ? `${[...new Set(swap.map((x) => String(x.removed_pointer ?? x.error)))].join(" / ")}; hooks/programs run: ${list(programs)}; the real remote got the branch: ${pushed}`
            : "never reported",
        },
      ].map(rename);
    }
    return [
      ...shared,
      {
        attack: "a pre-push hook planted in the shared mirror captures the installation token",
        path,
        held: precondition.ok && prePush.length === 0 && tokenInLoot.length === 0,
        detail: precondition.ok
          ? `pre-push ran: ${prePush.length > 0}; token in: ${list(tokenInLoot)}`
          : precondition.why,
      },
      lootRow(
        path,
        "planted hooks run by the bot's own git (post-checkout, post-commit, reference-transaction, ...)",
        o,
        /^hook-/,
        precondition,
      ),
      lootRow(
        path,
        "core.fsmonitor / gpg.program run by the bot's own git",
        o,
        /^program-(fsmonitor|gpg|pager|editor|askpass|ssh|credential)/,
        precondition,
      ),
      lootRow(
        path,
        ".gitattributes / info/attributes filter driver run by git",
        o,
        /^program-(filter|textconv)/,
        precondition,
      ),
      {
        attack: "url.insteadOf planted in the mirror redirects the bot's push",
        path,
        held: pushed && attackerRefs === "",
        detail: `remote got the branch: ${pushed}; attacker's repository got: ${attackerRefs || "nothing"}`,
      },
    ].map(rename);
  } finally {
    removeContext(ctx);
  }
}

export const pyHostileApp = (canaries: Canaries, host: HostListener) => hostileApp("py", canaries, host);
export const jsHostileApp = (canaries: Canaries, host: HostListener) => hostileApp("js", canaries, host);

export const APP_SCENARIOS: Scenario[] = [
  { name: "app: python hostile repository", run: pyHostileApp },
  { name: "app: javascript hostile repository", run: jsHostileApp },
];

export type Scenario = { name: string; run: (canaries: Canaries, host: HostListener) => Promise<AttackResult[]> };

export const CLI_SCENARIOS: Scenario[] = [
  // First: it mostly sleeps (a minute), alongside the others.
  { name: "a test that runs past the time limit", run: hangCli },
  { name: "python hostile repository", run: pyHostileCli },
  { name: "javascript hostile repository", run: jsHostileCli },
  { name: "honest repository (loopback)", run: pyHonestCli },
  { name: "resource exhaustion", run: resourcesCli },
  { name: "a test that kills its parent", run: killerCli },
  { name: "environment through the config", run: envConfigCli },
  { name: "symlinked source", run: symlinkCli },
  { name: "forged coverage path", run: forgedTraceCli },
  { name: "install cache poisoning (npm postinstall)", run: jsCachePoisonCli },
  { name: "install cache poisoning (pip build backend)", run: pyCachePoisonCli },
  { name: "warm runner probe", run: warmProbeCli },
];

/** Runs scenarios `width` at a time (the slow, idle timeout scenario alongside), each failure of the harness itself a broken row. */
export async function runScenarios(
  scenarios: Scenario[],
  canaries: Canaries,
  host: HostListener,
  width = 2,
): Promise<AttackResult[]> {
  const results: AttackResult[][] = [];
  const queue = scenarios.map((s, i) => ({ s, i }));
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { s, i } = next;
      try {
        results[i] = await s.run(canaries, host);
      } catch (error) {
        results[i] = [
          {
            attack: `${s.name}: the scenario itself`,
            path: "harness",
            held: false,
            detail: short(String((error as Error).stack ?? error), 400),
          },
        ];
      }
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results.flat();
}

// The attacks each path judges, by name: a test per attack, and a check that the
// scenarios judged exactly these (none silently skipped).
const PROC = [
  "read /proc/*/environ of every visible process",
  "read /proc/*/cmdline of every visible process",
  "environment variables",
];
const WRITES = [
  "write to a sentinel tree outside the worktree",
  "write to the bot's $HOME/.bashrc",
  "write to the user's original checkout",
  "write to the host's /tmp",
];
const DAEMON = [
  "a forked process outlives the run",
  "a leftover process steals from later runs and the bot's later steps",
];
const EGRESS = "connect to a non-loopback address (this host's own, a listener outside)";
const HOOKS = "planted hooks run by the bot's own git (post-checkout, post-commit, reference-transaction, ...)";
const PROGRAMS = "core.fsmonitor / gpg.program run by the bot's own git";
const FILTER = ".gitattributes / info/attributes filter driver run by git";
const TAMPER = "a test appends stolen secrets to the fixed source file: they must not reach the commit";

export const CLI_ATTACKS: Array<[string, string]> = [
  ...[
    ...PROC,
    "read the bot's data dir and HOME",
    "no canary anywhere (output, report, files, history, loot)",
    ...WRITES,
    "plant hooks/config/info/attributes in the real .git",
    HOOKS,
    PROGRAMS,
    FILTER,
    "conftest.py writes outside the worktree",
    "setup.cfg addopts plugin writes outside the worktree",
    EGRESS,
    ...DAEMON,
    "honest test test_http_server_ipv4_loopback passes in the sandbox as outside",
    "honest test test_http_server_ipv6_loopback passes in the sandbox as outside",
    "honest test test_localhost_name_resolves_to_loopback passes in the sandbox as outside",
    "honest test test_socketpair_tempfile_subprocess passes in the sandbox as outside",
    "honest repository still gets its fix",
    "fork bomb (1,000 processes) is bounded",
    "disk flood (256 files, 4 GiB in all) is bounded",
    "a test kills its parent and the bot",
    "a process started by a killing test outlives the run",
    "PYTHONSTARTUP set through the repository config never runs the repository's code",
    "PYTHONSTARTUP set through the repository config is refused with a clear message (not a crash)",
    "a source file symlinked outside the repository is never edited through the link",
    "a forged coverage path outside the worktree is never edited",
    'a test sleeping past the 1-minute limit: the bot says "timed out after 60 s"',
    "the timed-out test's processes are gone",
    "a process a warm-runner test starts outlives the slot",
    "a warm-runner test sees other slots or talks to the bot's socket on a second connection",
    "no canary anywhere after warm runs (output, report, files, history, loot)",
    "an install script plants a package that another repository with the same lockfile gets from the install cache",
    "an install script writes outside the worktree and its cache entry",
    "an install script reads the bot's secrets (environment, /proc/*/environ, data dir) into what is cached",
  ].map((a): [string, string] => ["cli py", a]),
  ...[
    ...PROC,
    "no canary anywhere (output, report, files, history, loot)",
    ...WRITES,
    "replace the worktree's .git file with a directory holding a malicious config",
    TAMPER,
    "package.json lifecycle scripts (pre/post test, install, prepare) run",
    EGRESS,
    "honest test: HTTP server on 127.0.0.1 works in the sandbox",
    "honest test: HTTP server on ::1 works in the sandbox",
    ...DAEMON,
    "NODE_OPTIONS set through the repository config never runs the repository's code",
    "NODE_OPTIONS set through the repository config is refused with a clear message (not a crash)",
    "an install script plants a package that another repository with the same lockfile gets from the install cache",
    "an install script writes outside the worktree and its cache entry",
    "an install script reads the bot's secrets (environment, /proc/*/environ, data dir) into what is cached",
  ].map((a): [string, string] => ["cli js", a]),
];

const APP_SHARED = [
  ...PROC,
  "no canary in the checkout's files and history, sentinel, HOME, loot",
  ...WRITES,
  "a secret reaches the PR body or a comment (raw or base64)",
  "the installation token is never visible to a test (or what it planted)",
  "no canary anywhere (PR body, comments, pushed history, logs, job store, cache)",
  EGRESS,
  ...DAEMON,
  "the App job completes (a PR is opened)",
];

export const APP_ATTACKS: Array<[string, string]> = [
  ...[
    ...APP_SHARED,
    "a pre-push hook planted in the shared mirror captures the installation token",
    HOOKS,
    PROGRAMS,
    FILTER,
    "url.insteadOf planted in the mirror redirects the bot's push",
  ].map((a): [string, string] => ["app py", a]),
  ...[...APP_SHARED, TAMPER, "replace the worktree's .git file with a directory holding a malicious config"].map(
    (a): [string, string] => ["app js", a],
  ),
];
