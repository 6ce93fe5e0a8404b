// The behaviour calls a reproduce answer carries (prompts/reproduce.yml asks for them when
// the runner's language has a behaviour harness): written from the issue alone, before any
// fix exists, they spare the behaviour check a call of its own after the fix. The schema
// sent to the model shows them in full, required or null, so a server's strict mode still
// applies. An answer without them (a model that gives null) keeps its test, and so does
// one whose calls break their schema: a good reproduction test is never refused for
// its extras. Those calls are set aside with the reason, and the behaviour check asks for
// its own once a fix passes.
import { z } from "zod";
import { behaviourCallsSchema, behaviourRequest, type IssueCalls } from "../behaviour/behaviour-calls.ts";
import type { BehaviourLanguage } from "../behaviour/behaviour-language.ts";
import { reproductionSchema } from "../lpw/schemas.ts";

/** The behaviour paragraphs' variables of prompts/reproduce.yml; without a harness for the runner, those paragraphs are left out. */
export function callsPromptVars(language: BehaviourLanguage | undefined): Record<string, string> {
  return language?.prompt ?? { language: "(none)", rules: "(none)" };
}

export type ReproductionAnswer = z.infer<typeof reproductionSchema> & {
  behaviour?: z.infer<typeof behaviourCallsSchema> | null | undefined;
};

/**
 * The reproduce stage's schema for one run, and what its last validation made of the calls.
 * Without a harness for the runner's language, the plain schema: no calls are asked for.
 */
export function reproductionAnswer(language: BehaviourLanguage | undefined): {
  schema: z.ZodType<ReproductionAnswer>;
  issueCalls: (answer: ReproductionAnswer) => IssueCalls | undefined;
} {
  if (!language) return { schema: reproductionSchema, issueCalls: () => undefined };
  // Why the last answer's calls broke the schema (the stage's validation runs once per answer).
  let broken: string | undefined;
  const calls = z.preprocess((value) => {
    broken = undefined;
    if (value === undefined || value === null) return null;
    const parsed = behaviourCallsSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    broken = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${["behaviour", ...i.path].join(".")}: ${i.message}`)
      .join("; ");
    return null;
  }, behaviourCallsSchema.nullable());
  return {
    schema: reproductionSchema.extend({ behaviour: calls }),
    issueCalls: (answer) => {
      if (broken) return { kind: "unusable", reason: `they broke their schema: ${broken}` };
      if (!answer.behaviour) return undefined;
      const request = behaviourRequest(answer.behaviour, language);
      return "reason" in request ? { kind: "unusable", reason: request.reason } : { kind: "calls", request };
    },
  };
}
