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

export function parseRepoConfigText(text: string): RepoConfig {
  let data: unknown;
  try {
    data = parseYaml(text, { prettyErrors: true, maxAliasCount: 50 });
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const where = error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : "unknown position";
      throw new RepoConfigError([`not valid YAML at ${where}: ${error.message.split("\n")[0] ?? "parse error"}`]);
    }
    throw error;
  }
  return parseRepoConfigObject(data);
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
