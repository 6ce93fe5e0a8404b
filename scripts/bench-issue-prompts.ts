// `npm run bench:issue-prompts`: what an issue task whose first try passes costs in model
// calls and prompt characters, end to end through `autogen eval` (the reproduce stage, the
// strategy's stages and the behaviour check's calls): the local benchmark's py-money-negative
// task, with LPW and direct, a scripted model on a loopback server answering each stage (the
// reproduce answer carries behaviour calls; a bot that ignores them asks the behaviour-calls
// stage, which is answered too). Prints the transcripts' figures (scripts/bench-prompts.ts).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeModelServer, sendCompletion } from "../test/llm/fake-model-server.ts";

const CALLS = {
  module: "moneyfmt",
  calls: [
    { call: "format_money(-1234.5)", expected: "'-$1,234.50'", why: "the case the issue reports" },
    { call: "format_money(1234.5)", expected: "unspecified", why: "a positive amount behaves as before" },
  ],
};
const FIX = {
  edits: [
    {
      kind: "replace",
      path: "moneyfmt/format.py",
      search: '    whole, _, fraction = f"{value:f}".partition(".")',
      replace: '    sign = "-" if value < 0 else ""\n    whole, _, fraction = f"{abs(value):f}".partition(".")',
    },
    {
      kind: "replace",
      path: "moneyfmt/format.py",
      search: '    return f"{symbol}{text}"',
      replace: '    return f"{sign}{symbol}{text}"',
    },
  ],
};
const ANSWERS: Record<string, unknown> = {
  reproduce: {
    path: "tests/test_negative_refund.py",
    content:
      'from moneyfmt import format_money\n\n\ndef test_refund_has_sign_before_symbol():\n    assert format_money(-1234.5) == "-$1,234.50"\n',
    expectedFailure: "AssertionError: '$-1,234.50' != '-$1,234.50'",
    behaviour: CALLS,
  },
  plan: { steps: ["Take the sign off the quantised amount", "Put the sign before the currency symbol"] },
  verify_plan: {
    tests: [
      {
        test: "test_refund_has_sign_before_symbol",
        steps: [
          { step: 1, value: "sign '-', value 1234.50" },
          { step: 2, value: "-$1,234.50" },
        ],
        derived: "-$1,234.50",
        expected: "-$1,234.50",
        matches: true,
      },
    ],
  },
  implement: FIX,
  generate: FIX,
  behaviour_calls: CALLS,
};

const root = join(import.meta.dirname, "..");
const transcripts = mkdtempSync(join(tmpdir(), "bench-issue-prompts-"));
const server = await fakeModelServer((request, res) => {
  sendCompletion(res, JSON.stringify(ANSWERS[request.response_format?.json_schema?.name ?? ""] ?? {}));
});
try {
  // Asynchronous: the loopback server answers in this process while eval runs.
  const eval_ = spawn(
    process.execPath,
    [
      "src/cli.ts",
      "eval",
      "--dataset",
      "local:bench/local-tasks",
      "--task",
      "py-money-negative",
      "--strategy",
      "lpw,direct",
      "--concurrency",
      "1",
      "--transcripts",
      transcripts,
      "--out",
      mkdtempSync(join(tmpdir(), "bench-issue-prompts-out-")),
    ],
    {
      cwd: root,
      env: { ...process.env, AUTOGEN_LLM_BASE_URL: server.baseURL },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  const code = await new Promise<number | null>((done) => eval_.on("close", done));
  if (code !== 0) throw new Error(`autogen eval exited ${String(code)}`);
} finally {
  await server.close();
}
spawnSync(process.execPath, ["scripts/bench-prompts.ts", transcripts], { cwd: root, stdio: "inherit" });
