// The instructions each call repeats are kept short: the reproduce prompt's system message
// (with the behaviour calls' paragraph) and its user text around the sections, and the
// verify-plan prompt's step, rendered with empty sections, stay under these sizes
// (2026-12-06: 1,836 and 2,235 for the reproduce system message in Python and JavaScript,
// 1,390 for the verify-plan prompt around its sections; 2026-12-07, before the last cut:
// 1,475 and 1,874, reproduce user 652, verify-plan 1,289; after it 1,399, 1,746, 563, 1,250).
import { describe, expect, it } from "vitest";
import { behaviourLanguage } from "../../src/engine/behaviour/behaviour-language.ts";
import { callsPromptVars } from "../../src/engine/reproduce/reproduction-calls.ts";
import { renderPrompt } from "../../src/llm/prompts.ts";

describe("the instructions repeated in every call", () => {
  it("keeps the reproduce system message and the verify-plan step short", () => {
    const reproduce = (runner: string) =>
      renderPrompt("reproduce", {
        untrusted: { problem: "p", testExample: "t", code: "c", feedback: "(none)" },
        trusted: { ...callsPromptVars(behaviourLanguage(runner)), framework: runner, attempts: "3" },
      });
    expect(reproduce("pytest").system.length).toBeLessThanOrEqual(1_400);
    expect(reproduce("node-test").system.length).toBeLessThanOrEqual(1_750);
    expect(reproduce("pytest").user.length).toBeLessThanOrEqual(580);
    // Still asks for what the behaviour check reads.
    for (const word of ["`calls`", "`expected`", "`why`", "`module`", "`unspecified`", "raises ValueError"])
      expect(reproduce("pytest").system).toContain(word);
    const verify = renderPrompt("verify-plan", {
      untrusted: { problem: "p", tests: "t", code: "c" },
      trusted: { plan: "1. x" },
    });
    const system = verify.system.length;
    expect(verify.user.length + system).toBeLessThanOrEqual(1_260);
    expect(verify.user).toContain("⟦ ⟧");
  });
});
