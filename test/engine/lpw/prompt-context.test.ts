// What the model is sent, read from the HTTP requests to a scripted model while LPW fixes a
// bug deep in a 2,000-line module with real pytest runs: the faulty method whole with
// true line numbers and no Sphinx config in the plan prompt; each parametrized case's id
// and parameters, the test's body once, and the expected and actual values a test
// helper's bare `assert` hid (made visible by a rerun with assertion rewriting).
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { lpwStrategy } from "../../../src/engine/lpw/lpw-strategy.ts";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import { BUGGY_LINE_TEXT, gridRepo, ISSUE } from "../../support/context-fixture.ts";
import { useHttpMock } from "../../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../../support/llm-mock.ts";
import { PYTEST_ENV, writeRepo } from "../../support/python-task.ts";

useHttpMock();

const PLAN = {
  stage: "plan",
  content: {
    steps: ["In Table.wrap_text_to_colwidths, treat a width of 0 or less like None: keep the cell unwrapped"],
  },
};
const VERIFIED = {
  stage: "verify-plan",
  content: {
    tests: [
      {
        test: "test_wrap_width[zero]",
        steps: [{ step: 1, value: "alpha beta" }],
        derived: "alpha beta",
        expected: "alpha beta",
        matches: true,
      },
    ],
  },
};
const FIX = {
  stage: "implement",
  content: {
    edits: [
      {
        kind: "replace",
        path: "grid/table.py",
        search: `                if width is None:\n`,
        replace: `                if width is None or width <= 0:\n`,
      },
    ],
  },
};

describe("the prompts LPW sends for a bug deep in a large module", () => {
  it("shows the faulty method whole, no docs/conf.py, and each failing case with its parameters and values", async () => {
    const { requests } = scriptAnswers([PLAN, VERIFIED, FIX]);
    const dir = await writeRepo(gridRepo());
    const llm = testLlm();
    const sandbox = { timeoutMs: 60_000, env: PYTEST_ENV };
    const runner = detectRunner(dir);
    const outcome = await lpwStrategy({ llm }).run({
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
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });

    const plan = requests[0]?.messages[1]?.content ?? "";
    expect(plan).toContain(`1746|${BUGGY_LINE_TEXT}`);
    expect(plan).toContain("1737|    def wrap_text_to_colwidths(self, colwidths):\n1738|");
    expect(plan).toContain("1750|        return result");
    expect(plan).toContain("1725|class Table:");
    expect(plan).not.toContain("docs/conf.py");
    expect(plan).not.toContain("html_theme_options");
    expect(plan.length).toBeLessThan(12_000);
    // The plan's tests carry the values the helper hid, each case's parameters and the test's body.
    expect(plan).toContain("assert 'alpha beta' == 'a\\nl\\np");
    expect(plan.match(/def test_wrap_width\(width, expected\):/g)).toHaveLength(1);
    expect(plan).toContain('# test/test_wrap.py::test_wrap_width[zero]  parameters: width=0, expected="alpha beta"');

    const verify = requests[1]?.messages[1]?.content ?? "";
    expect(verify.match(/def test_wrap_width\(width, expected\):/g)).toHaveLength(1);
    expect(verify).toContain('@pytest.mark.parametrize("width,expected"');
    expect(verify).toContain("# (the source above, once, for its 2 failing cases)");
    expect(verify).toContain(
      "# test/test_wrap.py::test_wrap_width[zero]  parameters: width=0, expected=\"alpha beta\"\n# fails now with: AssertionError: assert 'alpha beta' == 'a\\nl\\np",
    );
    expect(verify).toContain(
      '# test/test_wrap.py::test_wrap_width[negative]  parameters: width=-1, expected="alpha beta"',
    );
    expect(verify).not.toMatch(/fails now with: AssertionError\n/);
    // Without a check-verification call in between.
    expect(requests.map((r) => r.response_format.json_schema.name)).toEqual(["plan", "verify_plan", "implement"]);
    // Plan and verify share the system message; the verify prompt shows the code the plan names,
    // built as the implement prompt's (the same block before any edit), not the plan context again
    // with the callers' signatures and the map the plan was made from.
    expect(requests[1]?.messages[0]?.content).toBe(requests[0]?.messages[0]?.content);
    const codeOf = (prompt: string) => {
      const start = prompt.indexOf('<untrusted name="code">');
      return prompt.slice(start, prompt.indexOf("</untrusted>", start));
    };
    expect(codeOf(verify)).toContain(`1746|${BUGGY_LINE_TEXT}`);
    expect(codeOf(verify)).toContain("1737|    def wrap_text_to_colwidths(self, colwidths):\n1738|");
    expect(codeOf(plan)).toContain("Callers and callees");
    expect(codeOf(verify)).not.toContain("Callers and callees");

    // The implement prompt shows the faulty method by symbol, with its class header, not the module's first lines cut at a length.
    const implement = requests[2]?.messages[1]?.content ?? "";
    expect(implement).toContain(`1746|${BUGGY_LINE_TEXT}`);
    expect(implement).toContain("1737|    def wrap_text_to_colwidths(self, colwidths):\n1738|");
    expect(implement).toContain("1725|class Table:");
    expect(implement).toMatch(/⋮ lines \d+-\d+ not shown/);
    // The verified plan's walk-through stands for the tests: their source is not sent a third time.
    expect(implement).toContain("Its verification on the tests:\nTest test_wrap_width[zero]:");
    expect(implement).not.toContain("def test_wrap_width(width, expected):");
    expect(implement).not.toContain("The failing tests");
    expect(implement.length).toBeLessThan(20_000);
    expect(codeOf(verify)).toBe(codeOf(implement));
  });

  it("refines against the current code by symbol, and a search block copied with its line numbers applies", async () => {
    const half = {
      stage: "implement",
      content: {
        edits: [
          {
            kind: "replace",
            path: "grid/table.py",
            search: "                if width is None:\n",
            replace: "                if width is None or width < 0:\n",
          },
        ],
      },
    };
    const analysis = { stage: "analyze-error", content: { divergence: "a width of 0 still wraps", fix: "use <= 0" } };
    const refine = {
      stage: "refine",
      content: {
        edits: [
          {
            kind: "replace",
            path: "grid/table.py",
            search: "1743|                if width is None or width < 0:\n",
            replace: "1743|                if width is None or width <= 0:\n",
          },
        ],
      },
    };
    const { requests } = scriptAnswers([PLAN, VERIFIED, half, analysis, refine]);
    const dir = await writeRepo(gridRepo());
    const sandbox = { timeoutMs: 60_000, env: PYTEST_ENV };
    const runner = detectRunner(dir);
    const outcome = await lpwStrategy({ llm: testLlm(), instrumentedDebug: false, codeExplanation: false }).run({
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
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
    expect(outcome.diff).toContain("+                if width is None or width <= 0:");
    const refinePrompt = requests[4]?.messages[1]?.content ?? "";
    expect(refinePrompt).toContain("1743|                if width is None or width < 0:");
    expect(refinePrompt).toContain("1725|class Table:");
    expect(refinePrompt).toContain("test_wrap_width[zero]");
  });
});
