// Reads `.github/autogen.yml` text (or an already-parsed object, as Probot's
// context.config returns) into a validated RepoConfig, or a RepoConfigError whose lines
// each name a field and what to put there.
import { parse as parseYaml, YAMLParseError } from "yaml";
import { formatIssues } from "./format-issues.ts";
import { knownKeysAt } from "./repo-config-json-schema.ts";
import { repoConfigSchema, type RepoConfig } from "./repo-config-schema.ts";

export const REPO_CONFIG_PATH = ".github/autogen.yml";

export class RepoConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`${REPO_CONFIG_PATH} is invalid:\n${problems.map((p) => `- ${p}`).join("\n")}`);
    this.name = "RepoConfigError";
    this.problems = problems;
  }
}

/** A config larger than this is refused unread: the whole schema fits in a few KiB. */
export const REPO_CONFIG_MAX_BYTES = 256 * 1024;
/** YAML aliases allowed: enough for anchors reused a few times, far from an alias bomb's expansion. */
const MAX_ALIASES = 50;

export function parseRepoConfigText(text: string): RepoConfig {
  if (Buffer.byteLength(text, "utf8") > REPO_CONFIG_MAX_BYTES) {
    throw new RepoConfigError([`the file is ${Buffer.byteLength(text, "utf8")} bytes; at most ${REPO_CONFIG_MAX_BYTES} are read (the settings fit in a few KiB)`]);
  }
  let data: unknown;
  try {
    data = parseYaml(text, { prettyErrors: true, maxAliasCount: MAX_ALIASES });
  } catch (error) {
    throw new RepoConfigError([yamlProblem(error)]);
  }
  return parseRepoConfigObject(data);
}

/**
 * Any failure of the YAML reader as one line for the user. The reader throws more than
 * YAMLParseError: a ReferenceError for an alias bomb, a RangeError for nesting deeper than
 * the stack; none of them may reach the user as a stack trace or fail a webhook delivery.
 */
function yamlProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError || /call stack/i.test(message)) return "nests too deeply to read: flatten the structure (the settings need at most a few levels)";
  if (error instanceof YAMLParseError) {
    const where = error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : "unknown position";
    return `not valid YAML at ${where}: ${error.message.split("\n")[0] ?? "parse error"}`;
  }
  if (/alias count/i.test(message)) return `uses YAML aliases (*name) more than ${MAX_ALIASES} times in all, the limit that stops alias bombs: write the values out`;
  return `could not be read as YAML: ${message.split("\n")[0]?.slice(0, 200) || "unknown error"}`;
}

export function parseRepoConfigObject(data: unknown): RepoConfig {
  // An empty file means "all defaults".
  const input = data === null || data === undefined ? {} : data;
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new RepoConfigError(["the file must be a mapping of keys to values (for example `label: autogen`)"]);
  }
  const result = repoConfigSchema.safeParse(input, { reportInput: true });
  if (!result.success) throw new RepoConfigError(formatIssues(result.error.issues, knownKeysAt));
  return result.data;
}
