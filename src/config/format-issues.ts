// Turns zod issues into sentences a maintainer can act on: where (a dotted path),
// what is wrong, what was given, and for unknown keys the closest known one.
import type { z } from "zod";

export function formatIssues(
  issues: readonly z.core.$ZodIssue[],
  knownKeysAt?: (path: PropertyKey[]) => string[],
): string[] {
  return issues.map((issue) => formatIssue(issue, knownKeysAt));
}

function formatIssue(issue: z.core.$ZodIssue, knownKeysAt?: (path: PropertyKey[]) => string[]): string {
  const where = issue.path.length === 0 ? "top level" : issue.path.map(String).join(".");
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = knownKeysAt?.(issue.path) ?? [];
      return issue.keys
        .map((key) => {
          const near = closest(key, known);
          const hint = near
            ? ` (did you mean "${near}"?)`
            : known.length > 0
              ? ` (known keys: ${known.join(", ")})`
              : "";
          return `${where === "top level" ? "" : `${where}: `}unknown key "${key}"${hint}`;
        })
        .join("; ");
    }
    case "invalid_type":
      return `${where}: expected ${issue.expected}, got ${describe(issue.input)}`;
    case "too_small": {
      const bound = issue.inclusive === false ? "greater than" : "at least";
      const unit = issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
      if (issue.origin === "string" && issue.minimum === 1) return `${where}: must not be empty`;
      return `${where}: must be ${bound} ${String(issue.minimum)}${unit}, got ${describe(issue.input)}`;
    }
    case "too_big": {
      const bound = issue.inclusive === false ? "less than" : "at most";
      return `${where}: must be ${bound} ${String(issue.maximum)}, got ${describe(issue.input)}`;
    }
    case "invalid_key":
      // A record's key broke its own rule: say that rule, about that key.
      return `${where}.${String(issue.input)}: ${issue.issues.map((inner) => inner.message).join("; ")}`;
    case "invalid_value":
      return `${where}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${describe(issue.input)}`;
    default:
      return `${where}: ${issue.message}${issue.input === undefined ? "" : ` (got ${describe(issue.input)})`}`;
  }
}

export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return "an object";
}

function closest(key: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min((row[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}
