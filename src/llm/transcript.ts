// Every model call as one JSON line (stage, model, messages, answer, usage, latency),
// and a client that answers from such a transcript, so a whole run can be replayed
// offline.
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { droppedSecrets } from "../secrets/drop-secrets.ts";
import { processSecrets, secretScrubber } from "../secrets/scrub-secrets.ts";

export const transcriptEntrySchema = z.object({
  stage: z.string(),
  model: z.string(),
  attempt: z.int(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
  answer: z.string().nullable(),
  finishReason: z.string().nullable(),
  refusal: z.string().nullable(),
  usage: z.object({ promptTokens: z.int(), completionTokens: z.int(), cachedTokens: z.int() }),
  dollars: z.number(),
  latencyMs: z.number(),
  error: z.string().optional(),
  /** How the schema was sent (see response-format.ts); absent in transcripts from before it degraded. */
  responseFormat: z.enum(["json_schema", "json_object", "prompt"]).optional(),
  /** True when the server reported no usage and the token counts are estimates from the text. */
  usageEstimated: z.boolean().optional(),
  /** True when a cache in front of the model answered (an earlier completion sent again): not billed. */
  cached: z.boolean().optional(),
});
export type TranscriptEntry = z.infer<typeof transcriptEntrySchema>;

export type TranscriptSink = { write(entry: TranscriptEntry): void; entries: TranscriptEntry[] };

/**
 * Keeps entries in memory and, when given a path, appends them to a JSON-lines file. Every
 * text of an entry (messages, the answer, a refusal, an error, stage and model) is scrubbed
 * before it is kept or written, whatever client writes it: with the process's own secrets
 * (those in its environment and those already dropped from it) always, and with `scrub` too,
 * the door's scrubber, which may know more (a key read from a file, a token minted for the
 * job). A model can echo a secret it was never sent.
 */
export function transcript(path?: string, scrub?: (text: string) => string): TranscriptSink {
  const entries: TranscriptEntry[] = [];
  if (path) mkdirSync(dirname(path), { recursive: true });
  const own = secretScrubber([...processSecrets(process.env), ...droppedSecrets()]);
  const both = (text: string) => own(scrub ? scrub(text) : text);
  const clean = (entry: TranscriptEntry): TranscriptEntry => ({
    ...entry,
    stage: both(entry.stage),
    model: both(entry.model),
    messages: entry.messages.map((m) => ({ ...m, content: both(m.content) })),
    answer: entry.answer === null ? null : both(entry.answer),
    refusal: entry.refusal === null ? null : both(entry.refusal),
    ...(entry.error !== undefined ? { error: both(entry.error) } : {}),
  });
  return {
    entries,
    write(raw) {
      const entry = clean(raw);
      entries.push(entry);
      if (path) appendFileSync(path, `${JSON.stringify(entry)}\n`);
    },
  };
}

export function readTranscript(path: string): TranscriptEntry[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((line, i) => {
      const parsed = transcriptEntrySchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${path}:${i + 1}: not a transcript entry`);
      return parsed.data;
    });
}
