// `autogen-bot eval`: strategies side by side on a dataset; prints the results table and
// writes results.json and results.md.
// Its work is in run-eval.ts, loaded only when the command runs: another command's start (or a
// --help) does not load its modules.
import type { CliCommand } from "./command.ts";

const USAGE = `autogen-bot eval --dataset humanevalfix:<path/to/humanevalpack.jsonl>|local:<dir> [--strategy template] [--limit N] [--offset N]
             [--concurrency C] [--candidates N] [--minutes M] [--test-timeout S] [--per-test-timeout S] [--out DIR]
             [--transcripts DIR] [--replay DIR] [--task ID,ID] [--check] [--template-after] [--review]

Runs each strategy on the same tasks: the engine sees only the visible tests; the hidden
tests run once, after it stops. Strategies: template (no model); lpw, slpw, seidr, direct (need
AUTOGEN_LLM_BASE_URL / OPENAI_API_KEY; each task gets the default budgets, and with
--transcripts every model call is written to DIR/<strategy>/<task>.jsonl; --replay DIR
answers from such transcripts instead of an endpoint, offline). --test-timeout bounds one test run (default 20 s),
--per-test-timeout one test inside it (default 1 s: the tasks are small functions). Prints a table (solved, plausible, cost, time) and writes
DIR/results.json, results.md and results.svg (DIR defaults to ./eval-results). Dataset
kinds: humanevalfix:<jsonl>, local:<directory with one task repository per subdirectory,
its hidden tests in hidden/; or repo/, hidden/, reference/ (the reference fix) and issue.md>.
A local task with issue.md starts as \`autogen-bot fix --issue\` does: a baseline run, then the
failing tests, or (a strategy with a model) a reproduction test when every test passes.
--template-after keeps LPW's template pass after the model's stages (as \`autogen-bot fix\` runs it; each
template edit ships only if the model accepts it); by default strategies are compared alone.
--review gives the template strategy the model: an edit that passes the tests ships only if the model accepts it.
--task keeps only the tasks named. --check runs no strategy: it checks that each task's buggy repository fails its hidden
tests and its reference fix passes them (exit 1 when one does not).`;

export const evalCommand: CliCommand = {
  name: "eval",
  summary: "run repair strategies over an evaluation dataset and print the comparison",
  usage: USAGE,
  run: async (args, io) => (await import("./run-eval.ts")).runEvalCommand(args, io),
};
