// The stages the engine asks the model about, one prompt file each (prompts/<stage>.yml):
// configuration (per-stage completion caps) names them, so they live on the ground floor.
export const STAGES = [
  "localize",
  "reproduce",
  "plan",
  "verify-plan",
  "check-verification",
  "implement",
  "instrument",
  "analyze-error",
  "explain",
  "refine",
  "generate",
  "self-debug",
  "knowledge",
  "review-fix",
  "behaviour-calls",
] as const;
export type Stage = (typeof STAGES)[number];
