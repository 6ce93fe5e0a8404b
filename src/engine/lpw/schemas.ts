// What each LPW stage must answer, checked with zod on every answer.
import { z } from "zod";
import { editSchema } from "../../workspace/apply-edits.ts";

export const planSchema = z.object({ steps: z.array(z.string().min(1)).min(1).max(30) });

export const verificationSchema = z.object({
  tests: z
    .array(
      z.object({
        test: z.string(),
        steps: z.array(z.object({ step: z.int(), value: z.string() })),
        derived: z.string(),
        expected: z.string(),
        matches: z.boolean(),
      }),
    )
    .min(1),
  revisedPlan: z
    .object({ steps: z.array(z.string().min(1)).min(1) })
    .nullable()
    .optional(),
});
export type Verification = z.infer<typeof verificationSchema>;

export const checkSchema = z.object({ ok: z.boolean(), problems: z.array(z.string()) });
/** Edits, or none with `noChange` saying why the code needs no change (which ends the run). */
export const editsSchema = z
  .object({ edits: z.array(editSchema).max(40), noChange: z.string().nullable().optional() })
  .refine((v) => v.edits.length > 0 || (v.noChange ?? "").trim() !== "", {
    message: "give at least one edit, or say in noChange why the code needs no change",
  });
/** Temporary logging for an instrumented run: always edits. */
export const instrumentSchema = z.object({ edits: z.array(editSchema).min(1).max(40) });
export const analysisSchema = z.object({ divergence: z.string().min(1), fix: z.string().min(1) });
export const explanationSchema = z.object({ explanation: z.string().min(1) });
export const localizeSchema = z.object({
  files: z.array(z.string()).min(1).max(20),
  functions: z.array(z.string()).optional(),
});
/** The ids of its tests come from the runner's report, never from the model. */
export const reproductionSchema = z.object({
  path: z.string().min(1),
  content: z.string().min(1),
  expectedFailure: z.string().min(1),
});
export const knowledgeSchema = z.object({ facts: z.array(z.string()).max(30), queries: z.array(z.string()).max(10) });
