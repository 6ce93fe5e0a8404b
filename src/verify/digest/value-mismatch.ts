// The expected and actual values a failure message states, and where they differ: a
// long value cut to its head and tail hides the one place the model must see (a plan
// is verified against the expected output), so past the cap the digest shows the
// differing region of both with some context instead.
import { summariseValue } from "./summarise-value.ts";

export type Mismatch = { expected: string; actual: string };

/**
 * node:assert's `+ actual - expected` diff, `actual !== expected`, pytest's `assert left == right`
 * (left is the actual value by convention), unittest's `first != second`, Jest's
 * `Expected: … Received: …`, TAP's `expected: … actual: …` lines and chai's `expected A to equal B`.
 */
export function mismatchOf(message: string): Mismatch | undefined {
  const text = message.replace(/\r\n/g, "\n");
  if (/^\+ actual - expected$/m.test(text)) {
    const body = text
      .slice(text.search(/^\+ actual - expected$/m))
      .split("\n")
      .slice(1);
    const actual: string[] = [];
    const expected: string[] = [];
    for (const line of body) {
      if (/^\s*\^+\s*$/.test(line) || line === "") continue;
      if (line.startsWith("+ ")) actual.push(line.slice(2));
      else if (line.startsWith("- ")) expected.push(line.slice(2));
      else if (line.startsWith("  ")) {
        actual.push(line.slice(2));
        expected.push(line.slice(2));
      }
    }
    if (actual.length > 0 && expected.length > 0) return { actual: actual.join("\n"), expected: expected.join("\n") };
  }
  // TAP diagnostics as the TAP parser states them (tape's expected/actual, each on its own lines).
  const tap = /^expected: ([\s\S]*?)\nactual: ([\s\S]*)$/m.exec(text);
  if (tap) return { expected: tap[1] ?? "", actual: (tap[2] ?? "").replace(/\n$/, "") };
  const jest = /Expected:\s*([\s\S]*?)\n\s*Received:\s*([\s\S]*)$/.exec(text);
  if (jest) return { expected: (jest[1] ?? "").trim(), actual: (jest[2] ?? "").trim() };
  const chai = /expected ([\s\S]+?) to (?:deeply )?(?:strictly )?equal ([\s\S]+)$/.exec(text);
  if (chai) return { actual: (chai[1] ?? "").trim(), expected: (chai[2] ?? "").trim() };
  const body = text.replace(/^(?:AssertionError(?: \[ERR_ASSERTION\])?:\s*)?(?:assert\s+)?/, "");
  // The first comparison stated, whichever operator: pytest's explanation under `assert a == b`
  // ("At index 0 diff: 'x' != 'y'") compares parts of the values, not the values.
  const first = [" !== ", " === ", " != ", " == "]
    .map((op) => ({ op, at: topLevelIndex(body, op) }))
    .filter((c) => c.at > 0)
    .sort((a, b) => a.at - b.at)[0];
  if (!first) return undefined;
  return {
    actual: body.slice(0, first.at).trim(),
    expected:
      body
        .slice(first.at + first.op.length)
        .split("\n")[0]
        ?.trim() ?? "",
  };
}

/** Where `op` first occurs outside quotes and brackets, or -1. */
function topLevelIndex(text: string, op: string): number {
  let quote: string | undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === "`") quote = ch;
    else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
    else if (depth === 0 && text.startsWith(op, i)) return i;
  }
  return -1;
}

/** Both values around their first difference, `context` characters either side. */
export function describeMismatch({ expected, actual }: Mismatch, context = 80): string {
  const shorter = Math.min(expected.length, actual.length);
  let prefix = 0;
  while (prefix < shorter && expected[prefix] === actual[prefix]) prefix++;
  if (prefix === shorter && expected.length === actual.length)
    return `expected and actual print the same (${expected.length} chars): ${summariseValue(expected, 2 * context)}`;
  let suffix = 0;
  while (suffix < shorter - prefix && expected[expected.length - 1 - suffix] === actual[actual.length - 1 - suffix])
    suffix++;
  const line = expected.slice(0, prefix).split("\n").length;
  const region = (value: string) => {
    const start = Math.max(0, prefix - context);
    const differing = value.slice(prefix, value.length - suffix);
    const middle =
      differing.length > 4 * context
        ? `${differing.slice(0, 2 * context)} …(${differing.length - 4 * context} chars)… ${differing.slice(-2 * context)}`
        : differing;
    const end = Math.min(value.length, value.length - suffix + context);
    return `${start > 0 ? "…" : ""}${value.slice(start, prefix)}⟦${middle}⟧${value.slice(value.length - suffix, end)}${end < value.length ? "…" : ""}`;
  };
  return `expected (${expected.length} chars) and actual (${actual.length} chars) first differ at char ${prefix}${line > 1 ? ` (line ${line})` : ""}, the difference in ⟦⟧: expected ${region(expected)} | actual ${region(actual)}`;
}

/**
 * A failure message within about `limit` characters: whole when it fits; else its opening
 * and, when it states an expected and an actual value, where they differ; else head and tail.
 */
export function summariseFailure(message: string, limit: number): string {
  const flat = message.replace(/\s*\n\s*/g, " ");
  if (flat.length <= limit) return flat;
  const mismatch = mismatchOf(message);
  if (!mismatch) return summariseValue(flat, limit);
  const where = describeMismatch(mismatch, Math.max(40, Math.floor(limit / 16)));
  return `${flat.slice(0, Math.min(120, Math.floor(limit / 4)))} … ${where}`;
}

/** pytest's own diff of two long values from a failure's details (it shortens the values in the assertion line itself). */
export function pytestDiff(details: string | undefined, maxLines = 12): string[] {
  const lines = (details ?? "")
    .split("\n")
    .flatMap((l) => /^E\s{3,}((?:Skipping \d+ identical .*)|(?:[-+?] .*))$/.exec(l)?.[1] ?? [])
    // pytest's explanation of a call (`+  where 4 = add(2, 2)`) is not a diff line.
    .filter((l) => !/^\+\s+(where|and)\b/.test(l));
  if (!lines.some((l) => l.startsWith("- ")) || !lines.some((l) => l.startsWith("+ "))) return [];
  return lines.slice(0, maxLines).map((l) => summariseValue(l, 300));
}
