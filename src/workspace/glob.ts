// Path patterns as in .gitignore, for `paths.allowed` and `paths.protected`: a pattern
// names a file or a directory, and naming a directory covers everything under it.
//
// - no slash (`vendor`, `*.lock`): matches a file or directory name at any depth;
// - a leading or middle slash (`/build`, `docs/api`): anchored at the repository root;
// - a trailing slash (`docs/`): directories only, so everything under them;
// - `**/x` at any depth, `x/**` everything inside, `a/**/b` zero or more directories;
//   other `*` stay within one name, `?` is one character, `[a-z]`/`[!a-z]` a class;
// - `{a,b}` alternatives, as in shell and editor globs (git has no braces; users expect them);
// - `!pattern` re-includes what an earlier pattern in the same list matched: the last
//   matching pattern wins. Unlike git, a file under a matched directory can be re-included
//   (git cannot only because it never reads an ignored directory).
// - `\` escapes the next character.

/** More alternatives than this from one pattern's braces is refused, not expanded. */
const MAX_ALTERNATIVES = 256;

export class PatternError extends Error {}

/**
 * A regular expression for a path relative to the repository root (no leading slash) that
 * the pattern names, itself or through one of its directories. Ignores a leading `!`.
 */
export function globToRegExp(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (!regex) {
    const body = pattern.startsWith("!") ? pattern.slice(1) : pattern;
    regex = new RegExp(`^(?:${expandBraces(body).map(alternativeToSource).join("|")})$`);
    compiled.set(pattern, regex);
  }
  return regex;
}

// Patterns come from a handful of config lists; each is compiled once per process.
const compiled = new Map<string, RegExp>();

/** Whether the last pattern in the list that matches the path is not a negation. */
export function matchesAny(path: string, patterns: readonly string[]): boolean {
  let matched = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith("!");
    // Only a pattern that could change the answer needs testing.
    if (negated === !matched) continue;
    if (globToRegExp(pattern).test(path)) matched = !negated;
  }
  return matched;
}

/** Why a pattern cannot be used, or null when it can. */
export function patternProblem(pattern: string): string | null {
  try {
    globToRegExp(pattern);
    return null;
  } catch (error) {
    if (error instanceof PatternError || error instanceof SyntaxError) return error.message;
    throw error;
  }
}

function alternativeToSource(pattern: string): string {
  let p = pattern;
  const dirOnly = p.endsWith("/") && !p.endsWith("\\/");
  if (dirOnly) p = p.replace(/\/+$/, "");
  // A slash anywhere but at the end anchors the pattern at the root.
  const anchored = p.includes("/");
  p = p.replace(/^\/+/, "");
  if (p === "") throw new PatternError(`"${pattern}" names no path`);
  const segments = p.split("/");
  let source = "";
  segments.forEach((segment, index) => {
    const first = index === 0;
    const last = index === segments.length - 1;
    if (segment === "**") {
      // `**/` leading or in the middle: zero or more directories; `/**` at the end: everything inside.
      if (last && !first) source += "/.*";
      else if (first && last) source += ".*";
      else source += first ? "(?:.*/)?" : "/(?:.*/)?";
      return;
    }
    const afterDoubleStar = index > 0 && segments[index - 1] === "**";
    if (!first && !afterDoubleStar) source += "/";
    source += segmentToSource(segment, pattern);
  });
  // A pattern without a slash matches a name at any depth.
  const prefix = anchored ? "" : "(?:.*/)?";
  // What the pattern names may be a directory: everything under it matches too. With a
  // trailing slash it must be one.
  const suffix = dirOnly ? "/.*" : "(?:/.*)?";
  return `${prefix}${source}${suffix}`;
}

/** One path segment: `*`, `?`, classes and escapes; nothing here matches `/`. */
function segmentToSource(segment: string, pattern: string): string {
  let out = "";
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i] as string;
    if (ch === "\\") {
      const next = segment[i + 1];
      if (next === undefined) throw new PatternError(`"${pattern}" ends with a lone backslash`);
      out += escapeRegExp(next);
      i++;
    } else if (ch === "*") {
      while (segment[i + 1] === "*") i++;
      out += "[^/]*";
    } else if (ch === "?") out += "[^/]";
    else if (ch === "[") {
      const end = classEnd(segment, i);
      if (end === -1) out += "\\[";
      else {
        let inner = segment.slice(i + 1, end);
        const negated = inner.startsWith("!") || inner.startsWith("^");
        if (negated) inner = inner.slice(1);
        const body = inner.replace(/\\(.)/g, "$1").replace(/[\\\]^]/g, "\\$&");
        out += negated ? `[^/${body}]` : `(?!/)[${body}]`;
        i = end;
      }
    } else out += escapeRegExp(ch);
  }
  return out;
}

/** The index of the `]` closing the class opened at `start`, or -1 when it is not a class. */
function classEnd(segment: string, start: number): number {
  let i = start + 1;
  if (segment[i] === "!" || segment[i] === "^") i++;
  // A `]` right after the opening bracket is a member, not the end.
  if (segment[i] === "]") i++;
  for (; i < segment.length; i++) {
    if (segment[i] === "\\") i++;
    else if (segment[i] === "]") return i;
  }
  return -1;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** `a{b,c{d,e}}f` → `abf`, `acdf`, `acef`. Braces without a top-level comma stay literal. */
function expandBraces(pattern: string): string[] {
  const open = findBraceSet(pattern);
  if (!open) return [pattern];
  const { start, end, parts } = open;
  const head = pattern.slice(0, start);
  const tail = pattern.slice(end + 1);
  const out: string[] = [];
  for (const part of parts) {
    for (const expanded of expandBraces(`${head}${part}${tail}`)) {
      out.push(expanded);
      if (out.length > MAX_ALTERNATIVES) throw new PatternError(`"${pattern}" expands to more than ${MAX_ALTERNATIVES} alternatives`);
    }
  }
  return out;
}

/** The first `{...}` holding a comma at its own level, split at those commas. */
function findBraceSet(pattern: string): { start: number; end: number; parts: string[] } | null {
  for (let start = 0; start < pattern.length; start++) {
    if (pattern[start] === "\\") {
      start++;
      continue;
    }
    if (pattern[start] !== "{") continue;
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < pattern.length; i++) {
      const ch = pattern[i];
      if (ch === "\\") i++;
      else if (ch === "{") depth++;
      else if (ch === "," && depth === 1) commas.push(i);
      else if (ch === "}" && --depth === 0) {
        if (commas.length === 0) break;
        const bounds = [start, ...commas, i];
        return { start, end: i, parts: bounds.slice(0, -1).map((b, k) => pattern.slice(b + 1, bounds[k + 1])) };
      }
    }
  }
  return null;
}
