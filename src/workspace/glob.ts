// Path patterns as in .gitignore, for `paths.allowed` and `paths.protected`: the `ignore`
// package matches each pattern exactly as git does (a name at any depth, a leading or
// middle slash anchoring at the root, a trailing slash for directories, `**` forms,
// classes, escapes; a directory covers everything under it), after `{a,b}` alternatives
// are expanded by brace-expansion (git has no braces; users expect them). Two rules are
// ours, around the library:
// - `!pattern` re-includes what an earlier pattern in the same list matched: the last
//   matching pattern wins, tested pattern by pattern, so unlike git a file under a matched
//   directory can be re-included (git cannot only because it never reads an ignored directory);
// - a pattern that names no path, ends in a lone backslash or expands to too many
//   alternatives is refused when the configuration is read.
import { expand } from "brace-expansion";
import ignore from "ignore";

type Ignore = ReturnType<typeof ignore>;

/** More alternatives than this from one pattern's braces is refused, not expanded. */
const MAX_ALTERNATIVES = 256;

export class PatternError extends Error {}

export type PathPattern = { test(path: string): boolean };

/**
 * Whether a path relative to the repository root (no leading slash) is named by the
 * pattern, itself or through one of its directories. Ignores a leading `!`.
 */
export function pathPattern(pattern: string): PathPattern {
  let matcher = compiled.get(pattern);
  if (!matcher) {
    const body = pattern.startsWith("!") ? pattern.slice(1) : pattern;
    const rules = alternatives(body, pattern).map((alternative) => ignore({ ignorecase: false }).add(alternative));
    matcher = { test: (path) => rules.some((rule) => ignores(rule, path)) };
    compiled.set(pattern, matcher);
  }
  return matcher;
}

// Patterns come from a handful of config lists; each is compiled once per process.
const compiled = new Map<string, PathPattern>();

/** Whether the last pattern in the list that matches the path is not a negation. */
export function matchesAny(path: string, patterns: readonly string[]): boolean {
  let matched = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith("!");
    // Only a pattern that could change the answer needs testing.
    if (negated === !matched) continue;
    if (pathPattern(pattern).test(path)) matched = !negated;
  }
  return matched;
}

/** Why a pattern cannot be used, or null when it can. */
export function patternProblem(pattern: string): string | null {
  try {
    pathPattern(pattern);
    return null;
  } catch (error) {
    if (error instanceof PatternError) return error.message;
    throw error;
  }
}

function alternatives(body: string, pattern: string): string[] {
  if (/(^|[^\\])(\\\\)*\\$/.test(body)) throw new PatternError(`"${pattern}" ends with a lone backslash`);
  const expanded = expand(body, { max: MAX_ALTERNATIVES + 1 });
  if (expanded.length > MAX_ALTERNATIVES)
    throw new PatternError(`"${pattern}" expands to more than ${MAX_ALTERNATIVES} alternatives`);
  for (const alternative of expanded) {
    if (alternative.replace(/\//g, "").trim() === "") throw new PatternError(`"${pattern}" names no path`);
  }
  return expanded;
}

/** A path the library cannot take (empty, absolute, `../x`) is named by no pattern. */
function ignores(rule: Ignore, path: string): boolean {
  try {
    return rule.ignores(path);
  } catch (error) {
    if (error instanceof RangeError || error instanceof TypeError) return false;
    throw error;
  }
}
