import { basename, dirname, resolve } from "node:path";
import { parseRepoConfigText, REPO_CONFIG_PATH, RepoConfigError } from "../config/parse-repo-config.ts";
import { readRepoConfigText } from "../config/read-repo-config-file.ts";
import { EXIT, type CliCommand } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";

export const checkConfigCommand: CliCommand = {
  name: "check-config",
  summary: `validate a repository's ${REPO_CONFIG_PATH} and print the effective settings`,
  usage: `autogen-bot check-config [file] [--json]\n\nfile defaults to ${REPO_CONFIG_PATH} in the current directory.`,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, { json: { type: "boolean" } });
    if (positionals.length > 1) {
      io.stderr(`autogen-bot check-config: expected at most one file, got ${positionals.length}\n`);
      return EXIT.usage;
    }
    const path = resolve(io.cwd, positionals[0] ?? REPO_CONFIG_PATH);
    try {
      const text = await readRepoConfigText(dirname(path), basename(path));
      if (text === undefined) {
        io.stderr(`autogen-bot check-config: cannot read ${path} (ENOENT)\n`);
        return EXIT.usage;
      }
      const config = parseRepoConfigText(text);
      io.stdout(values.json ? `${JSON.stringify(config, null, 2)}\n` : `${path}: valid\n`);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof RepoConfigError) {
        io.stderr(`${path}: invalid\n${error.problems.map((p) => `- ${p}`).join("\n")}\n`);
        return EXIT.failed;
      }
      throw error;
    }
  },
};
