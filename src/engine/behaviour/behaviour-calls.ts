// The model's extra inputs for an accepted fix (CoCoST's generated tests): a few calls
// derived from the issue, each with the output the issue expects or "unspecified". They
// come with the reproduction test when the issue was reproduced (written before any fix
// exists), else from a call of their own once a fix passed. The answer is hostile input:
// the calls are evaluated only by the harness in the sandbox.
import { z } from "zod";
import type { LlmClient } from "../../llm/llm-client.ts";
import type { BehaviourLanguage } from "./behaviour-language.ts";

export const behaviourCallsSchema = z.object({
  module: z.string().min(1).max(200),
  calls: z
    .array(
      z.object({
        call: z.string().min(1).max(500),
        expected: z.string().min(1).max(500),
        why: z.string().min(1).max(500),
      }),
    )
    .min(1)
    .max(12),
});

/** One generated call: `expected` undefined when the issue does not say what it returns. */
export type BehaviourCall = { call: string; expected: string | undefined; why: string };
export type BehaviourRequest = { module: string; calls: BehaviourCall[] };
/** The calls the reproduce stage's answer carried, or why they cannot be used (the check then asks for its own). */
export type IssueCalls = { kind: "calls"; request: BehaviourRequest } | { kind: "unusable"; reason: string };

const MAX_CALLS = 8;

/** The calls the model writes for the issue and the fix, or why there are none. */
export async function askBehaviourCalls(
  llm: LlmClient,
  input: { problem: string | undefined; diff: string },
  language: BehaviourLanguage,
): Promise<BehaviourRequest | { reason: string }> {
  const vars = {
    trusted: language.prompt,
    untrusted: {
      problem: input.problem ?? "Make the failing tests pass (no issue text was given).",
      diff: input.diff,
    },
  };
  const { value } = await llm.call("behaviour-calls", vars, behaviourCallsSchema);
  return behaviourRequest(value, language);
}

/** A schema-valid answer as the harness takes it: the module checked, at most MAX_CALLS calls, "unspecified" as no expectation. */
export function behaviourRequest(
  value: z.infer<typeof behaviourCallsSchema>,
  language: BehaviourLanguage,
): BehaviourRequest | { reason: string } {
  const module = value.module.trim().replace(/^\.\//, "");
  const refused = language.refuseModule(module);
  if (refused) return { reason: refused };
  const calls = value.calls.slice(0, MAX_CALLS).map((c) => {
    const expected = c.expected.trim();
    return {
      call: c.call.trim(),
      expected: /^unspecified$/i.test(expected) ? undefined : expected,
      why: c.why.trim(),
    };
  });
  return { module, calls };
}
