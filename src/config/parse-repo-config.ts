// Reads `.github/autogen.yml` text (or an already-parsed object, as Probot's
// context.config returns) into a validated RepoConfig, or a RepoConfigError whose lines
// each name a field and what to put there.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, YAMLParseError } from "yaml";
import { formatIssues } from "./format-issues.ts";
import { knownKeysAt } from "./repo-config-json-schema.ts";
import { repoConfigSchema, type RepoConfig } from "./repo-config-schema.ts";

export const REPO_CONFIG_PATH = ".github/autogen.yml";

/** The problems shown at most, each at most so long: a file of 20,000 unknown keys must still fit a comment. */
const MAX_PROBLEMS = 20;
const MAX_PROBLEM_CHARS = 300;

export class RepoConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    const shown = problems
      .slice(0, MAX_PROBLEMS)
      .map((p) => (p.length > MAX_PROBLEM_CHARS ? `${p.slice(0, MAX_PROBLEM_CHARS - 1)}…` : p));
    if (problems.length > MAX_PROBLEMS) shown.push(`and ${problems.length - MAX_PROBLEMS} more problems`);
    super(`${REPO_CONFIG_PATH} is invalid:\n${shown.map((p) => `- ${p}`).join("\n")}`);
    this.name = "RepoConfigError";
    this.problems = shown;
  }
}

/** A config larger than this is refused unread: the whole schema fits in a few KiB, and the YAML reader takes about a second per 50 KiB of keys. */
export const REPO_CONFIG_MAX_BYTES = 64 * 1024;
/** YAML aliases allowed: enough for anchors reused a few times, far from an alias bomb's expansion. */
const MAX_ALIASES = 50;

/** The config in this text, or a RepoConfigError: whatever goes wrong reading it, never another error. */
export function parseRepoConfigText(text: string): RepoConfig {
  if (Buffer.byteLength(text, "utf8") > REPO_CONFIG_MAX_BYTES) {
    throw new RepoConfigError([
      `the file is ${Buffer.byteLength(text, "utf8")} bytes; at most ${REPO_CONFIG_MAX_BYTES} are read (the settings fit in a few KiB)`,
    ]);
  }
  let data: unknown;
  try {
    data = readYaml(text);
  } catch (error) {
    throw error instanceof RepoConfigError ? error : new RepoConfigError([yamlProblem(error)]);
  }
  return parseRepoConfigObject(data);
}

/**
 * The YAML's value. The reader's own duplicate-key check compares every key with every other
 * (20,000 keys took 50 s), so it is off and keys are checked here, once each. logLevel
 * "error": a warning (an unknown tag) is not printed to the bot's stderr.
 */
function readYaml(text: string): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: false, logLevel: "error", lineCounter });
  if (doc.errors[0]) throw doc.errors[0];
  const duplicate = firstDuplicateKey(doc.contents);
  if (duplicate) {
    const { line, col } = lineCounter.linePos(duplicate.offset);
    throw new RepoConfigError([
      `the key "${duplicate.key.slice(0, 60)}" is given twice (the second at line ${line}, column ${col}): keep one`,
    ]);
  }
  return doc.toJS({ maxAliasCount: MAX_ALIASES });
}

/** The first key repeated in a mapping, walked without recursion (the nesting may be deep). Aliases are not followed. */
function firstDuplicateKey(root: unknown): { key: string; offset: number } | undefined {
  const stack = [root];
  for (let node = stack.pop(); stack.length > 0 || node !== undefined; node = stack.pop()) {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
          const key = String(pair.key.value);
          if (seen.has(key)) return { key, offset: pair.key.range?.[0] ?? 0 };
          seen.add(key);
        }
        stack.push(pair.value);
      }
    } else if (isSeq(node)) stack.push(...node.items);
  }
  return undefined;
}

/**
 * Any failure of the YAML reader as one line for the user. The reader throws more than
 * YAMLParseError: a ReferenceError for an alias bomb, a RangeError for nesting deeper than
 * the stack; none of them may reach the user as a stack trace or fail a webhook delivery.
 */
function yamlProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError || /call stack/i.test(message))
    return "nests too deeply to read: flatten the structure (the settings need at most a few levels)";
  if (error instanceof YAMLParseError) {
    const where = error.linePos?.[0]
      ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}`
      : "unknown position";
    // The first line of the message repeats the position: say it once.
    return `not valid YAML at ${where}: ${(error.message.split("\n")[0] ?? "parse error").replace(/ at line \d+, column \d+:?$/, "")}`;
  }
  if (/alias count/i.test(message))
    return `uses YAML aliases (*name) more than ${MAX_ALIASES} times in all, the limit that stops alias bombs: write the values out`;
  return `could not be read as YAML: ${message.split("\n")[0]?.slice(0, 200) || "unknown error"}`;
}

export function parseRepoConfigObject(data: unknown): RepoConfig {
  // An empty file means "all defaults".
  const input = data === null || data === undefined ? {} : data;
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new RepoConfigError(["the file must be a mapping of keys to values (for example `label: autogen`)"]);
  }
  let problems: string[];
  try {
    const result = repoConfigSchema.safeParse(input, { reportInput: true });
    if (result.success) return result.data;
    problems = formatIssues(result.error.issues, knownKeysAt);
  } catch (error) {
    // A value the validator itself cannot walk (nesting past the stack): still the user's config error, not a crash.
    problems = [yamlProblem(error)];
  }
  throw new RepoConfigError(problems);
}
