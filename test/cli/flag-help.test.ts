// Every flag a command parses has one line in its --help, and every line names a flag it
// parses. The options each command hands to parseFlags are captured by running the command
// with parseFlags replaced by a recorder that stops it there.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { runCli } from "../support/run-cli.ts";

const seen: { options?: Record<string, unknown> } = {};
class Stop extends Error {}

vi.mock("../../src/cli/parse-flags.ts", () => ({
  parseFlags: (_args: string[], options: Record<string, unknown>) => {
    seen.options = options;
    throw new Stop("captured");
  },
}));

const { COMMANDS } = await import("../../src/cli/main.ts");
const { FLAG_HELP, STRATEGY_HELP } = await import("../../src/cli/flag-help.ts");

async function parsedFlags(name: string): Promise<string[]> {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new Error(`no command ${name}`);
  seen.options = undefined;
  const io = { stdout: () => {}, stderr: () => {}, env: {}, cwd: process.cwd(), isTty: false };
  await expect(command.run([], io)).rejects.toBeInstanceOf(Stop);
  return Object.keys(seen.options ?? {}).sort();
}

function helpFlags(help: string): string[] {
  const flags = help.split("\nFlags:\n")[1]?.split("\n\n")[0] ?? "";
  return flags
    .split("\n")
    .filter(Boolean)
    .map((line) => /^ {2}--([\w-]+)/.exec(line)?.[1] ?? `unparsed: ${line}`);
}

describe("--help of every command", () => {
  beforeEach(() => {
    seen.options = undefined;
  });

  const names = COMMANDS.map((c) => c.name);
  it.each(names)("%s: one help line per flag it parses, and no line for a flag it lacks", async (name) => {
    const parsed = await parsedFlags(name);
    const { code, stdout } = await runCli([name, "--help"]);
    expect(code).toBe(0);
    const documented = helpFlags(stdout);
    expect(documented.filter((f) => f !== "help").sort()).toEqual(parsed);
    expect(documented).toContain("help");
    expect(FLAG_HELP[name]?.map((f) => f.flag).sort()).toEqual(parsed);
  });

  it("the recorder sees the real options (fix parses --candidates, --minutes, --remember, --allow-dirty)", async () => {
    const expected = ["candidates", "minutes", "report", "remember", "json", "test-cmd", "allow-dirty"];
    expect(await parsedFlags("fix")).toEqual(expect.arrayContaining(expected));
  });

  it("fix and eval --help name every strategy with what it needs; `help fix` prints the same", async () => {
    const fix = await runCli(["fix", "--help"]);
    for (const s of STRATEGY_HELP) {
      expect(fix.stdout).toMatch(new RegExp(`\\n  ${s.name} +\\((no model|an LLM endpoint)\\) `));
    }
    expect(fix.stdout).toMatch(/\n {2}template +\(no model\)/);
    expect(fix.stdout).toMatch(/\n {2}lpw +\(an LLM endpoint\)/);
    expect((await runCli(["eval", "--help"])).stdout).toContain("Strategies (");
    expect((await runCli(["help", "fix"])).stdout).toBe(fix.stdout);
  });

  it("serve --help names the environment variables it reads", async () => {
    const { stdout } = await runCli(["serve", "--help"]);
    for (const name of ["APP_ID", "WEBHOOK_SECRET", "PRIVATE_KEY_PATH", "AUTOGEN_LLM_BASE_URL"]) {
      expect(stdout).toContain(`\n  ${name}\n`);
    }
  });

  it("help, --version, and help for an unknown command", async () => {
    const help = await runCli(["help"]);
    expect(help.code).toBe(0);
    for (const c of COMMANDS) expect(help.stdout).toContain(`\n  ${c.name} `);
    expect(help.stdout).toContain("(no model)");
    const version = await runCli(["--version"]);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const unknown = await runCli(["help", "frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^autogen-bot: unknown command "frobnicate"/);
  });
});
