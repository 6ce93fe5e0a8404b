// The behaviour calls a reproduce answer carries: shown to the model in full (strict mode
// still applies), optional in what is accepted (an answer without them, as every answer
// before them was, keeps its test), and calls that break their schema or name a module the
// harness refuses are set aside with the reason rather than costing the test.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { behaviourLanguage } from "../../../src/engine/behaviour/behaviour-language.ts";
import { callsPromptVars, reproductionAnswer } from "../../../src/engine/reproduce/reproduction-calls.ts";
import { renderPrompt } from "../../../src/llm/prompts.ts";
import { strictCompatible } from "../../../src/llm/response-format.ts";

const TEST = {
  path: "tests/test_x.py",
  content: "def test_x():\n    assert 1 == 2\n",
  expectedFailure: "assert 1 == 2",
};
const CALLS = {
  module: "pkg.mod",
  calls: [
    { call: "f([])", expected: "[]", why: "the reported case" },
    { call: "f([1])", expected: "Unspecified", why: "one element behaves as before" },
  ],
};

function answerFor(runner: string) {
  return reproductionAnswer(behaviourLanguage(runner));
}

describe("the reproduce answer's behaviour calls", () => {
  it("are in the schema the model is sent, required or null, so a server's strict mode still applies", () => {
    const json = z.toJSONSchema(answerFor("pytest").schema, { io: "output" }) as {
      required: string[];
      properties: Record<string, { anyOf?: Array<{ type?: string }> }>;
    };
    expect(json.required).toEqual(["path", "content", "expectedFailure", "behaviour"]);
    expect(json.properties.behaviour?.anyOf?.map((s) => s.type)).toEqual(["object", "null"]);
    expect(strictCompatible(json)).toBe(true);
  });

  it("an answer without them, or with null, keeps its test and carries none", () => {
    const answer = answerFor("pytest");
    for (const value of [TEST, { ...TEST, behaviour: null }]) {
      const parsed = answer.schema.parse(value);
      expect(parsed).toMatchObject(TEST);
      expect(answer.issueCalls(parsed)).toBeUndefined();
    }
  });

  it("valid calls are taken as the harness takes them: trimmed, 'unspecified' as no expectation", () => {
    const answer = answerFor("pytest");
    const parsed = answer.schema.parse({ ...TEST, behaviour: CALLS });
    expect(answer.issueCalls(parsed)).toEqual({
      kind: "calls",
      request: {
        module: "pkg.mod",
        calls: [
          { call: "f([])", expected: "[]", why: "the reported case" },
          { call: "f([1])", expected: undefined, why: "one element behaves as before" },
        ],
      },
    });
  });

  it("calls that break their schema keep the test and are set aside with the reason", () => {
    const answer = answerFor("pytest");
    const parsed = answer.schema.parse({ ...TEST, behaviour: { module: 7, calls: [{ call: "f()" }] } });
    expect(parsed).toMatchObject(TEST);
    expect(answer.issueCalls(parsed)).toEqual({
      kind: "unusable",
      reason:
        "they broke their schema: behaviour.module: Invalid input: expected string, received number; behaviour.calls.0.expected: Invalid input: expected string, received undefined; behaviour.calls.0.why: Invalid input: expected string, received undefined",
    });
    // The next answer's validation starts afresh.
    expect(answer.issueCalls(answer.schema.parse({ ...TEST, behaviour: CALLS }))?.kind).toBe("calls");
  });

  it("a module the harness refuses (a JavaScript path out of the repository) is set aside with the harness's reason", () => {
    const answer = answerFor("node-test");
    const parsed = answer.schema.parse({ ...TEST, behaviour: { ...CALLS, module: "../outside.js" } });
    expect(answer.issueCalls(parsed)).toEqual({
      kind: "unusable",
      reason: 'the model named no JavaScript file in the repository ("../outside.js")',
    });
  });

  it("for a runner no harness covers (cargo), no calls are asked for: the plain schema, and the prompt leaves those paragraphs out", () => {
    const answer = answerFor("cargo");
    const json = z.toJSONSchema(answer.schema, { io: "output" }) as { properties: Record<string, unknown> };
    expect(Object.keys(json.properties)).toEqual(["path", "content", "expectedFailure"]);
    const vars = {
      untrusted: { problem: "p", testExample: "t", code: "c", feedback: "(none)" },
      trusted: { framework: "cargo", attempts: "3" },
    };
    const plain = renderPrompt("reproduce", { ...vars, trusted: { ...callsPromptVars(undefined), ...vars.trusted } });
    expect(plain.system).not.toContain("behaviour");
    expect(plain.user).not.toContain("Earlier attempts");
    const js = renderPrompt("reproduce", {
      ...vars,
      trusted: { ...callsPromptVars(behaviourLanguage("node-test")), ...vars.trusted },
    });
    expect(js.system).toContain("Each call is one JavaScript expression evaluated with the module's exports in scope");
    expect(js.system).toContain("A call is one expression: no statements");
  });
});
