// `autogen fix <path>`: the engine on a local checkout. Works in a git worktree of HEAD
// (never the user's branch or uncommitted work), commits a fix on a new branch
// `autogen/<slug>`, and writes the report a PR body would hold.
// Its work is in run-fix.ts, loaded only when the command runs: another command's start (or a
// --help) does not load its modules.
import type { CliCommand } from "./command.ts";

const USAGE = `autogen-bot fix <path> [--issue <file|text>] [--test <id>]... [--test-cmd <cmd>] [--strategy <name>]
            [--candidates N] [--minutes M] [--report <file>] [--replay <transcript>] [--remember] [--allow-dirty] [--json]

Visible tests: the --test ids given, or else the tests failing now; with --issue and no
failing test, an LLM strategy first writes a reproduction test (the ids of its failing
tests are taken from the runner; it is committed with the fix as a new file). A test
command that loads no test is reported as broken before any model call. The whole suite
is the regression gate. Without an LLM endpoint (AUTOGEN_LLM_BASE_URL / OPENAI_API_KEY)
the model-free "template" strategy runs; with one, the repository's strategy (default
lpw), after a template first pass on the failing tests. Every model call is recorded to
.git/autogen/transcripts/; --replay answers from such a transcript instead of the
endpoint (offline).

Exit codes: 0 fixed (branch autogen/<slug> created), 1 not fixed, 2 bad input.`;

export const fixCommand: CliCommand = {
  name: "fix",
  summary: "repair a local checkout: find the bug behind failing tests, commit the fix on a new branch",
  usage: USAGE,
  run: async (args, io) => (await import("./run-fix.ts")).runFix(args, io),
};
