// Replays a transcript through the real SDK: a fetch that answers each Chat Completions
// request with the next recorded answer, after checking it is for the same stage (as one
// JSON completion even when the request asks for a stream, which the client accepts). A run
// that departs from the transcript gets an HTTP 422 naming where (the SDK does not retry
// 422 and puts the message in the error it throws).
import type { TranscriptEntry } from "./transcript.ts";

export function replayFetch(entries: readonly TranscriptEntry[]): typeof fetch {
  let next = 0;
  return async (_input, init) => {
    const body = JSON.parse(String(init?.body ?? "{}")) as { response_format?: { json_schema?: { name?: string } } };
    const stage = body.response_format?.json_schema?.name?.replaceAll("_", "-");
    const entry = entries[next++];
    const mismatch = !entry
      ? `the transcript has no answer left for call ${next} (stage ${stage ?? "?"})`
      : entry.stage !== stage
        ? `call ${next}: the run asks for stage ${stage ?? "?"} but the transcript recorded ${entry.stage}`
        : undefined;
    if (mismatch || !entry)
      return new Response(
        JSON.stringify({ error: { message: `replay mismatch: ${mismatch}`, type: "replay_mismatch" } }),
        { status: 422, headers: { "content-type": "application/json" } },
      );
    // A call that failed in the recorded run (timeout, broken stream, error answer) fails again here.
    if (entry.error)
      return new Response(
        JSON.stringify({ error: { message: `replayed failure: ${entry.error}`, type: "replay_failure" } }),
        { status: 422, headers: { "content-type": "application/json" } },
      );
    const completion = {
      id: `replay-${next}`,
      object: "chat.completion",
      created: 0,
      model: entry.model,
      choices: [
        {
          index: 0,
          finish_reason: entry.finishReason ?? "stop",
          message: { role: "assistant", content: entry.answer, refusal: entry.refusal },
        },
      ],
      usage: {
        prompt_tokens: entry.usage.promptTokens,
        completion_tokens: entry.usage.completionTokens,
        total_tokens: entry.usage.promptTokens + entry.usage.completionTokens,
        prompt_tokens_details: { cached_tokens: entry.usage.cachedTokens },
      },
    };
    return new Response(JSON.stringify(completion), { status: 200, headers: { "content-type": "application/json" } });
  };
}
