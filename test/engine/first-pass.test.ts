// The template pass after the model: when it finds no fix but learned something (suspicious
// lines, an edit that passes more tests), the model runs once more with those findings, and
// the plan prompt shows them.
import { describe, expect, it } from "vitest";
import { withTemplateAfter } from "../../src/engine/first-pass.ts";
import { findingsText } from "../../src/engine/lpw/findings-text.ts";
import { emptyOutcome, type Outcome, type Strategy, type Task } from "../../src/engine/task.ts";
import { renderPrompt } from "../../src/llm/prompts.ts";
import { testLlm } from "../support/llm-mock.ts";

const NEAR_DIFF =
  "--- a/shop/cart.py\n+++ b/shop/cart.py\n@@ -12 +12 @@\n-    return subtotal + discount\n+    return subtotal\n";

function outcome(strategy: string, fields: Partial<Outcome>): Outcome {
  return { ...emptyOutcome(strategy), ...fields };
}

function task(): Task {
  return {
    workspace: "/nonexistent",
    visible: { kind: "tests", ids: ["tests/test_cart.py"] },
    verifier: { name: "none", run: () => Promise.reject(new Error("not run")) } as unknown as Task["verifier"],
    sandbox: { timeoutMs: 1000 },
    runnerName: "pytest",
    isTestFile: (p) => p.startsWith("tests/"),
    budget: { candidates: 5, minutes: 5 },
  };
}

function model(results: Outcome[]): Strategy & { seen: Task[] } {
  const seen: Task[] = [];
  return {
    name: "lpw",
    seen,
    run: (t) => {
      seen.push(t);
      return Promise.resolve(results.shift() as Outcome);
    },
  };
}

const template = (result: Outcome): Strategy => ({ name: "template", run: () => Promise.resolve(result) });

const templateFound = outcome("template", {
  stopReason: "exhausted",
  message: "no candidate passes",
  plan: {
    localisation: [{ file: "shop/cart.py", line: 12, score: 0.71, failedCovering: 1, passedCovering: 0 }],
  },
  evidence: { before: { command: [], isolation: "none", passed: 2, failed: 1, skipped: 0, tests: [] } },
  closestAttempt: { diff: NEAR_DIFF, files: ["shop/cart.py"], passed: 3, failed: 1 },
});

describe("the template pass's findings reach the model", () => {
  it("runs the model again with the suspicious lines and the near miss, and says so", async () => {
    const lpw = model([
      outcome("lpw", { stopReason: "stuck", message: "the same failure three times in a row" }),
      outcome("lpw", { status: "fixed", stopReason: "solved", message: "the implementation passes" }),
    ]);
    const result = await withTemplateAfter(lpw, testLlm(), template(templateFound)).run(task());
    expect(lpw.seen).toHaveLength(2);
    expect(lpw.seen[0]?.findings).toBeUndefined();
    expect(lpw.seen[1]?.findings).toEqual({
      suspicious: [{ file: "shop/cart.py", line: 12, score: 0.71 }],
      nearMiss: { diff: NEAR_DIFF, passed: 3, failed: 1 },
    });
    expect(result).toMatchObject({
      status: "fixed",
      message:
        "the implementation passes, with the template pass's findings (1 suspicious line(s), an edit passing 3 test(s))",
    });
  });

  it("does not run the model again when the template pass learned nothing or the model's run ended in an error", async () => {
    const nothing = outcome("template", { stopReason: "exhausted", message: "no line to localise" });
    const once = model([outcome("lpw", { stopReason: "iterations", message: "no passing change" })]);
    await withTemplateAfter(once, testLlm(), template(nothing)).run(task());
    expect(once.seen).toHaveLength(1);
    const failed = model([outcome("lpw", { stopReason: "error", message: "the plan stage failed" })]);
    await withTemplateAfter(failed, testLlm(), template(templateFound)).run(task());
    expect(failed.seen).toHaveLength(1);
  });

  it("the plan prompt shows the findings, and leaves the section out without them", () => {
    const vars = (findings: string) => ({
      untrusted: { problem: "p", tests: "t", failures: "", code: "c", findings },
      trusted: { memory: "(none)" },
    });
    const shown = renderPrompt(
      "plan",
      vars(
        findingsText({
          suspicious: templateFound.plan.localisation,
          nearMiss: { diff: NEAR_DIFF, passed: 3, failed: 1 },
        }),
      ),
    ).user;
    expect(shown).toContain("What a mechanical search (fault localisation and template edits) found before you:");
    expect(shown).toContain("shop/cart.py:12 (0.71)");
    expect(shown).toContain("A mechanical edit that made 3 visible test(s) pass (1 still failing)");
    expect(shown).toContain("+    return subtotal\n");
    expect(renderPrompt("plan", vars(findingsText(undefined))).user).not.toContain("mechanical search");
  });
});
