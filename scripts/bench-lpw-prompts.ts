// `npm run bench:lpw-prompts`: what LPW sends the model, call by call, on a bug deep in a
// 2,120-line module (test/support/context-fixture.ts) with real pytest runs: a scripted model
// on a loopback server answers each stage (a first implementation that fixes half the cases,
// then an analysis and a refinement that fix the rest). Prints each call's stage, prompt
// characters, the characters not in an earlier call's prefix (what a provider's prefix cache
// cannot reuse), whether the faulty line is shown, then calls and the median per call.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { isTestFile } from "../src/engine/is-test-file.ts";
import { lpwStrategy } from "../src/engine/lpw/lpw-strategy.ts";
import { Budget } from "../src/llm/budget.ts";
import { openAiLlmClient } from "../src/llm/llm-client.ts";
import { transcript } from "../src/llm/transcript.ts";
import { localVerifier } from "../src/verify/local-verifier.ts";
import { detectRunner } from "../src/verify/runners/detect-runner.ts";
import { fakeModelServer, sendCompletion } from "../test/llm/fake-model-server.ts";
import { BUGGY_LINE_TEXT, gridRepo, ISSUE } from "../test/support/context-fixture.ts";

const edit = (search: string, replace: string) => ({
  edits: [{ kind: "replace", path: "grid/table.py", search, replace }],
});
const VERIFIED = {
  tests: [
    {
      test: "test_wrap_width",
      steps: [{ step: 1, value: "alpha beta" }],
      derived: "alpha beta",
      expected: "alpha beta",
      matches: true,
    },
  ],
};
const ANSWERS: Record<string, unknown> = {
  plan: { steps: ["In Table.wrap_text_to_colwidths, treat a width of 0 or less like None: keep the cell unwrapped"] },
  verify_plan: VERIFIED,
  check_verification: { ok: true, problems: [] },
  implement: edit("                if width is None:\n", "                if width is None or width < 0:\n"),
  analyze_error: { divergence: "a width of 0 still wraps", fix: "treat 0 like None too" },
  refine: edit("                if width is None or width < 0:\n", "                if width is None or width <= 0:\n"),
};

const dir = mkdtempSync(join(tmpdir(), "bench-lpw-prompts-"));
for (const [path, text] of Object.entries(gridRepo())) {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}
const server = await fakeModelServer((request, res) => {
  const stage = request.response_format?.json_schema?.name ?? "";
  sendCompletion(res, JSON.stringify(ANSWERS[stage] ?? {}));
});
try {
  const llm = openAiLlmClient({
    endpoint: { baseURL: server.baseURL, apiKey: "bench", model: "gpt-4o-mini" },
    budget: new Budget({ llmCalls: 30, tokens: 10_000_000, dollars: 100, minutes: 30 }),
    transcript: transcript(),
    scrub: (text: string) => text,
    maxRetries: 0,
    timeoutMs: 60_000,
  });
  const sandbox = { timeoutMs: 60_000, env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" } };
  const runner = detectRunner(dir);
  const outcome = await lpwStrategy({ llm, instrumentedDebug: false, codeExplanation: false }).run({
    workspace: dir,
    visible: { kind: "tests", ids: ["test/test_wrap.py"] },
    regression: { kind: "all" },
    verifier: localVerifier(runner, sandbox),
    sandbox,
    runnerName: runner.name,
    isTestFile,
    budget: { candidates: 5, minutes: 10 },
    description: ISSUE,
  });
  const texts = server.requests.map((r) => r.messages.map((m) => `${m.role}\n${m.content}\n`).join(""));
  const prefix = (a: string, b: string) => {
    let i = 0;
    while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    return i;
  };
  texts.forEach((text, i) => {
    const fresh = text.length - Math.max(0, ...texts.slice(0, i).map((t) => prefix(t, text)));
    const stage = server.requests[i]?.response_format?.json_schema?.name ?? "?";
    const shown = text.includes(BUGGY_LINE_TEXT) ? "faulty line shown" : "faulty line NOT shown";
    console.log(
      `${String(i + 1).padStart(2)}. ${stage.padEnd(18)} ${String(text.length).padStart(7)} chars, ${String(fresh).padStart(7)} not in an earlier prefix; ${shown}`,
    );
  });
  const sorted = texts.map((t) => t.length).sort((a, b) => a - b);
  console.log(
    `${outcome.status} (${outcome.stopReason}); ${texts.length} calls; median ${sorted[Math.floor(sorted.length / 2)] ?? 0} chars per call; ${sorted.reduce((a, b) => a + b, 0)} chars in all`,
  );
} finally {
  await server.close();
}
