// One line per flag of every command, and the strategies with what each needs: what
// `autogen-bot <command> --help` prints after the command's own usage. A test checks that
// every flag a command parses has its line here.
export type FlagHelp = { flag: string; arg?: string; help: string };

const MODEL = "an LLM endpoint";
export const STRATEGY_HELP: ReadonlyArray<{ name: string; needs: string; help: string }> = [
  { name: "template", needs: "no model", help: "localise the fault from test coverage, then repair templates" },
  { name: "lpw", needs: MODEL, help: "plan, check the plan on the tests, write, debug (the default)" },
  { name: "slpw", needs: MODEL, help: "lpw with sampled plans, the verified ones refined" },
  { name: "seidr", needs: MODEL, help: "drafts ranked by tests passed, repaired from the first failure, a beam" },
  { name: "direct", needs: MODEL, help: "baseline: one change from the failing tests, self-debugged" },
];

export const FLAG_HELP: Readonly<Record<string, readonly FlagHelp[]>> = {
  fix: [
    { flag: "issue", arg: "<file|text>", help: "the bug report (file or text); no failing test: a model writes one" },
    { flag: "test", arg: "<id>", help: "a test that shows the bug (repeatable); default: the tests failing now" },
    { flag: "test-cmd", arg: "<cmd>", help: "the test command (default: repo config test.command, or detected)" },
    { flag: "strategy", arg: "<name>", help: "a strategy below; default lpw with a model, template without" },
    { flag: "candidates", arg: "N", help: "test at most N candidates (default: budgets.iterations x 20, 480)" },
    { flag: "minutes", arg: "M", help: "stop after M minutes (default: budgets.minutes in the repo config, 45)" },
    { flag: "report", arg: "<file>", help: "write the report (the PR body) there, not to .git/autogen/<slug>.md" },
    { flag: "replay", arg: "<transcript>", help: "answer model calls from a recorded transcript, offline" },
    { flag: "remember", help: "remember this fix's plan, shown to later similar tasks" },
    { flag: "allow-dirty", help: "run despite uncommitted changes (the fix starts from HEAD without them)" },
    { flag: "json", help: "print the outcome as JSON instead of the progress and the summary" },
  ],
  serve: [{ flag: "no-setup", help: "with no App configured, list what is missing instead of opening the setup page" }],
  eval: [
    { flag: "dataset", arg: "<kind:path>", help: "humanevalfix:<jsonl> or local:<dir of task repos> (required)" },
    { flag: "strategy", arg: "<a,b>", help: "the strategies to compare, comma-separated (default template)" },
    { flag: "limit", arg: "N", help: "run at most N tasks" },
    { flag: "offset", arg: "N", help: "skip the first N tasks" },
    { flag: "concurrency", arg: "C", help: "tasks run at once (default 2)" },
    { flag: "candidates", arg: "N", help: "candidate changes per task (default 400)" },
    { flag: "minutes", arg: "M", help: "wall-clock minutes per task, the model's included (default 5)" },
    { flag: "test-timeout", arg: "S", help: "seconds for one test run (default 20)" },
    { flag: "per-test-timeout", arg: "S", help: "seconds for one test inside a run (default 1; 0 turns it off)" },
    { flag: "out", arg: "DIR", help: "where results.json, results.md and results.svg go (default eval-results)" },
    { flag: "transcripts", arg: "DIR", help: "record every model call to DIR/<strategy>/<task>.jsonl" },
    { flag: "replay", arg: "DIR", help: "answer model calls from transcripts recorded with --transcripts, offline" },
    { flag: "task", arg: "ID,ID", help: "keep only the tasks named" },
    { flag: "check", help: "no strategy: check each local task's buggy and reference versions" },
    { flag: "review", help: "template: each edit that passes the tests ships only if the model accepts it" },
    {
      flag: "template-after",
      help: "LPW: keep the template pass after the model's stages, each edit reviewed by the model (as `autogen-bot fix`)",
    },
  ],
  "check-config": [{ flag: "json", help: "print the problems as JSON (for scripts) instead of sentences" }],
  "init-workflow": [
    { flag: "action", help: "the workflow running the autogen-bot action (autogen.yml), not the verification one" },
    { flag: "write", help: "write the file into the repository instead of printing it" },
    { flag: "force", help: "with --write, replace an existing file" },
  ],
  dashboard: [
    { flag: "out", arg: "<dir>", help: "the folder the HTML pages are written to (required, but for --demo)" },
    { flag: "db", arg: "<file>", help: "the SQLite job store (default AUTOGEN_DB_PATH, else the data directory's)" },
    { flag: "demo", help: "render a bundled sample job history instead of a store (nothing to deploy first)" },
  ],
};

/** `-h`/`--help` belong to every command (main answers them before the command runs). */
const COMMON: readonly FlagHelp[] = [{ flag: "help", help: "this help" }];

export function flagLines(command: string): string[] {
  const flags = [...(FLAG_HELP[command] ?? []), ...COMMON];
  const left = flags.map((f) => `--${f.flag}${f.arg ? ` ${f.arg}` : ""}`);
  const width = Math.max(...left.map((l) => l.length));
  return flags.map((f, i) => `  ${(left[i] ?? "").padEnd(width)}  ${f.help}`);
}

export function strategyLines(): string[] {
  const width = Math.max(...STRATEGY_HELP.map((s) => s.name.length));
  return STRATEGY_HELP.map((s) => `  ${s.name.padEnd(width)}  (${s.needs}) ${s.help}`);
}

/** The full help of a command: its usage, one line per flag, and the strategies where it takes one. */
export function commandHelp(command: { name: string; usage: string }): string {
  const parts = [command.usage, "", "Flags:", ...flagLines(command.name)];
  if ((FLAG_HELP[command.name] ?? []).some((f) => f.flag === "strategy")) {
    const title = "Strategies (an LLM endpoint: AUTOGEN_LLM_BASE_URL, and OPENAI_API_KEY if it wants a key):";
    parts.push("", title, ...strategyLines());
  }
  return `${parts.join("\n")}\n`;
}
