// The JSON value in a model's answer. Servers without enforced structured output wrap it
// in markdown fences, put prose around it, or (reasoning models) think aloud first.
export type Extracted = { ok: true; value: unknown } | { ok: false; error: string };

export function extractJson(answer: string): Extracted {
  const text = answer.replace(/<think>[\s\S]*?<\/think>/g, "").trim();
  const whole = tryParse(text);
  if (whole.ok) return whole;
  for (const match of text.matchAll(/```[\w-]*[^\S\n]*\n?([\s\S]*?)```/g)) {
    const fenced = tryParse((match[1] ?? "").trim());
    if (fenced.ok) return fenced;
  }
  // Objects first: our schemas are objects, and prose often holds stray brackets.
  for (const open of ["{", "["] as const) {
    let tries = 0;
    // Bounded: each try scans to the end of the text.
    for (let start = text.indexOf(open); start !== -1 && tries++ < 64; start = text.indexOf(open, start + 1)) {
      const end = balancedEnd(text, start);
      if (end === -1) continue;
      const inner = tryParse(text.slice(start, end + 1));
      if (inner.ok) return inner;
    }
  }
  return { ok: false, error: `not JSON (${whole.error})` };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** The index of the bracket closing the one at `start`, skipping brackets inside strings; -1 if unbalanced. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}
