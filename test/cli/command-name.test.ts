// The command is `autogen-bot`: the npm package `autogen` is unrelated, so no instruction a
// user might copy (README, docs, templates, generated workflows, help) may say `npx autogen`
// or `autogen <command>`. `/autogen fix` (a comment command) and the `autogen` label stay.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderActionWorkflow } from "../../src/cli/action-workflow.ts";
import { renderVerifyWorkflow } from "../../src/cli/init-workflow-command.ts";
import { COMMANDS, usage } from "../../src/cli/main.ts";
import { ROOT } from "../support/run-cli.ts";

const BARE = [
  /npx autogen(?![\w-])/,
  /(?<![\w/.-])autogen (?:fix|serve|eval|check-config|init-workflow|dashboard|help|<)/,
];

function bareUses(text: string): string[] {
  return text.split("\n").filter((line) => BARE.some((pattern) => pattern.test(line)));
}

function files(dir: string, ext: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(ext))
    .map((f) => join(dir, f));
}

describe("the command name", () => {
  it("the bin is autogen-bot, not the name of an unrelated npm package", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(Object.keys(pkg.bin)).toEqual(["autogen-bot"]);
  });

  it("finds a bare form when there is one (the check itself works)", () => {
    const text = "run `npx autogen init-workflow --write`\nthen `autogen fix .`\n/autogen fix is fine";
    expect(bareUses(text)).toHaveLength(2);
    expect(bareUses("`npx autogen-bot fix`, label autogen, `/autogen fix`, npm run autogen -- fix")).toEqual([]);
  });

  const documents = [
    "README.md",
    ".env.example",
    ...files("docs", ".md"),
    ...files("templates", ".yml"),
    ...files("examples", ".md"),
  ];
  it.each(documents)("%s never says `npx autogen` or `autogen <command>`", (file) => {
    expect(bareUses(readFileSync(join(ROOT, file), "utf8"))).toEqual([]);
  });

  it("the generated workflows and every help text use autogen-bot", () => {
    const workflows = [renderVerifyWorkflow(undefined), renderActionWorkflow(undefined, [])];
    const texts = [...workflows, usage(), ...COMMANDS.map((c) => c.usage)];
    expect(texts.flatMap(bareUses)).toEqual([]);
    expect(usage()).toContain("Usage: autogen-bot <command>");
  });
});
