// The engine's outcome and a red build's attribution as a job's checkpoint keeps them,
// typed: the store has checked the stored shape (jobs/job-checkpoint.ts); these readers
// give the doors the engine's and the verifier's own types, or nothing when it is absent.
import { z } from "zod";
import type { Outcome } from "../engine/task.ts";
import { storedAttributionSchema, storedOutcomeSchema, type JobCheckpoint } from "../jobs/job-checkpoint.ts";
import type { AttributionResult } from "../verify/attribution.ts";

/** An outcome the doors can publish: the stored shape with its diff (hand-made ones may lack it). */
const outcomeShape = storedOutcomeSchema.extend({ diff: z.string() });
const outcomeSchema = z.custom<Outcome>((value) => outcomeShape.safeParse(value).success);
const attributionSchema = z.custom<AttributionResult>((value) => storedAttributionSchema.safeParse(value).success);

export function checkpointOutcome(checkpoint: JobCheckpoint): Outcome | undefined {
  const parsed = outcomeSchema.safeParse(checkpoint.outcome);
  return parsed.success ? parsed.data : undefined;
}

export function checkpointAttribution(checkpoint: JobCheckpoint): AttributionResult | undefined {
  const parsed = attributionSchema.safeParse(checkpoint.attribution);
  return parsed.success ? parsed.data : undefined;
}
