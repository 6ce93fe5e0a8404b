import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { strategyByName } from "../../src/engine/strategies.ts";
import { VERSION } from "../../src/version.ts";
import { runCli, spawnCli } from "../support/run-cli.ts";

describe("autogen CLI", () => {
  it("--help lists the commands and exits 0", async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: autogen-bot <command>");
    expect(stdout).toMatch(/^ {2}serve +run the GitHub App server/m);
    expect(stdout).toMatch(/^ {2}check-config +validate/m);
  });

  it("no arguments prints usage and exits 2", async () => {
    const { code, stdout } = await runCli([]);
    expect(code).toBe(2);
    expect(stdout).toContain("Usage: autogen-bot <command>");
  });

  it("--version prints the package version", async () => {
    expect(await runCli(["--version"])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("an unknown command prints usage and exits 2", async () => {
    const { code, stderr } = await runCli(["frobnicate"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^autogen-bot: unknown command "frobnicate"\n\nUsage: autogen-bot/);
  });

  it("a bad flag prints the command's usage and exits 2", async () => {
    const { code, stderr } = await runCli(["check-config", "--bogus"]);
    expect(code).toBe(2);
    expect(stderr).toContain("Unknown option '--bogus'");
    expect(stderr).toContain("autogen-bot check-config [file] [--json]");
  });

  it("a command's --help shows its usage", async () => {
    const { code, stdout } = await runCli(["serve", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Configured by environment variables");
  });

  it("eval --help lists every strategy --strategy accepts", async () => {
    const available = /available: (.*)$/
      .exec(
        (() => {
          try {
            strategyByName("no-such-strategy");
            return "";
          } catch (error) {
            return (error as Error).message;
          }
        })(),
      )?.[1]
      ?.split(", ");
    expect(available).toEqual(["template", "lpw", "slpw", "seidr", "direct"]);
    const { code, stdout } = await runCli(["eval", "--help"]);
    expect(code).toBe(0);
    const sentence = /Strategies: ([^.]*)/.exec(stdout.replaceAll("\n", " "))?.[1] ?? "";
    for (const name of available ?? []) expect(sentence).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it("check-config accepts a valid file and prints the effective settings", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-cfg-"));
    await writeFile(join(dir, "a.yml"), "label: bot-fix\n");
    const { code, stdout } = await runCli(["check-config", "a.yml", "--json"], { cwd: dir });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ label: "bot-fix", strategy: { name: "lpw" } });
  });

  it("check-config names each problem and exits 1", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-cfg-"));
    await writeFile(join(dir, "a.yml"), "lable: x\nbudgets:\n  dollars: -1\n");
    const { code, stderr } = await runCli(["check-config", join(dir, "a.yml")]);
    expect(code).toBe(1);
    expect(stderr).toContain('- unknown key "lable" (did you mean "label"?)');
    expect(stderr).toContain("- budgets.dollars: must be at least 0, got -1");
  });

  it("check-config on a missing file exits 2 with the path", async () => {
    const { code, stderr } = await runCli(["check-config", "/nonexistent/autogen.yml"]);
    expect(code).toBe(2);
    expect(stderr).toContain("cannot read /nonexistent/autogen.yml (ENOENT)");
  });

  it("serve refuses to start without configuration, naming every missing variable in one run and the docs, exit 2", async () => {
    const { code, stderr } = await runCli(["serve", "--no-setup"], { env: {} });
    expect(code).toBe(2);
    const lines = stderr.trim().split("\n");
    expect(lines[0]).toBe("autogen-bot serve: 3 problems with the environment:");
    expect(lines.slice(1, 4)).toEqual([
      expect.stringMatching(/^ {2}- APP_ID is not set: set it to the numeric App ID/),
      expect.stringMatching(/^ {2}- WEBHOOK_SECRET is not set: /),
      expect.stringMatching(/^ {2}- PRIVATE_KEY is not set: /),
    ]);
    expect(lines.at(-1)).toMatch(/\.env\.example.*docs\/deployment\.md/);
  });

  it("the installed bin runs as a real process", async () => {
    expect(await spawnCli(["--version"])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    const bad = await spawnCli(["nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown command "nope"');
  });
});
