import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseRepoConfigObject, parseRepoConfigText, RepoConfigError } from "../../src/config/parse-repo-config.ts";
import { renderConfigDocs } from "../../src/config/render-config-docs.ts";
import { repoConfigJsonSchema } from "../../src/config/repo-config-json-schema.ts";

function problemsOf(text: string): string[] {
  try {
    parseRepoConfigText(text);
  } catch (error) {
    if (error instanceof RepoConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected the config to be rejected");
}

describe("repository config", () => {
  it("fills every field with its default for an empty file", () => {
    const config = parseRepoConfigText("");
    expect(config.label).toBe("autogen");
    expect(config.triggers).toEqual({
      issues: true,
      ciFailure: "command",
      reviewFeedback: true,
      repairRoundsOnBotBranches: 1,
    });
    expect(config.test.command).toBeNull();
    expect(config.strategy.name).toBe("lpw");
    expect(config.strategy.maxPlanIterations).toBe(12);
    expect(config.budgets).toEqual({ iterations: 24, llmCalls: 80, tokens: 600_000, dollars: 3, minutes: 45 });
    expect(config.paths.protected).toContain(".github/workflows/**");
    expect(config.pullRequest.draft).toBe("auto");
  });

  it("keeps given values and defaults the rest of the same section", () => {
    const config = parseRepoConfigText("label: fix-me\nbudgets:\n  dollars: 0.5\ntest:\n  command: pytest -q\n");
    expect(config.label).toBe("fix-me");
    expect(config.budgets.dollars).toBe(0.5);
    expect(config.budgets.minutes).toBe(45);
    expect(config.test.command).toBe("pytest -q");
  });

  it("names an unknown key and suggests the near one", () => {
    expect(problemsOf("lable: autogen\n")).toEqual(['unknown key "lable" (did you mean "label"?)']);
    expect(problemsOf("budgets:\n  dolars: 1\n")).toEqual(['budgets: unknown key "dolars" (did you mean "dollars"?)']);
  });

  it("lists the known keys when nothing is close", () => {
    const [problem] = problemsOf("diff:\n  zzzzzzzz: 1\n");
    expect(problem).toBe('diff: unknown key "zzzzzzzz" (known keys: maxFiles, maxLines)');
  });

  it("says which type was expected and what was given", () => {
    expect(problemsOf("budgets:\n  tokens: many\n")).toEqual(['budgets.tokens: expected number, got "many"']);
    expect(problemsOf("triggers:\n  issues: [1]\n")).toEqual(["triggers.issues: expected boolean, got a list of 1"]);
  });

  it("rejects impossible values: negative budgets, zero limits, an empty label", () => {
    expect(problemsOf("budgets:\n  dollars: -1\n")).toEqual(["budgets.dollars: must be at least 0, got -1"]);
    expect(problemsOf("diff:\n  maxFiles: 0\n")).toEqual(["diff.maxFiles: must be at least 1, got 0"]);
    expect(problemsOf('label: ""\n')).toEqual(["label: must not be empty"]);
    expect(problemsOf('label: "   "\n')).toEqual(["label: must not be empty"]);
  });

  it("caps every number a repository may set (the config is untrusted; the machine is shared)", () => {
    expect(problemsOf("test:\n  timeoutMinutes: 100000\n")).toEqual([
      "test.timeoutMinutes: must be at most 60, got 100000",
    ]);
    expect(problemsOf("test:\n  limits:\n    processes: 1000000\n")).toEqual([
      "test.limits.processes: must be at most 4096, got 1000000",
    ]);
    expect(problemsOf("budgets:\n  dollars: 5000\n")).toEqual(["budgets.dollars: must be at most 100, got 5000"]);
  });

  it("refuses test environment variables that change what runs or look like secrets, with a clear line instead of a crash later", () => {
    for (const name of ["NODE_OPTIONS", "PYTHONSTARTUP", "LD_PRELOAD", "GIT_SSH_COMMAND", "PATH", "MY_API_TOKEN"]) {
      expect(problemsOf(`test:\n  env:\n    ${name}: x\n`)[0]).toContain(`cannot be set for test runs`);
    }
    expect(parseRepoConfigText("test:\n  env:\n    FEATURE_FLAG: '1'\n").test.env).toEqual({ FEATURE_FLAG: "1" });
  });

  it("rejects an unknown enum value listing the allowed ones", () => {
    expect(problemsOf("strategy:\n  name: magic\n")).toEqual([
      'strategy.name: must be one of "lpw", "slpw", "seidr", "direct", "template", got "magic"',
    ]);
  });

  it("refuses paths outside the repository and multi-line commands", () => {
    expect(problemsOf("paths:\n  allowed: ['../secrets/**']\n")[0]).toContain(
      "paths.allowed.0: must be a path pattern inside the repository",
    );
    expect(problemsOf('test:\n  command: "pytest\\nrm -rf /"\n')[0]).toContain("test.command: must be a single line");
  });

  it("reports every problem at once", () => {
    expect(problemsOf("lable: x\nbudgets:\n  dollars: -2\n  minutes: 0\n")).toHaveLength(3);
  });

  it("explains YAML syntax errors with a position", () => {
    const [problem] = problemsOf("label: [unclosed\n");
    expect(problem).toMatch(/^not valid YAML at line \d+, column \d+/);
  });

  it("rejects a file that is not a mapping", () => {
    expect(() => parseRepoConfigObject(["a"])).toThrow(/must be a mapping/);
    expect(problemsOf("just a string\n")).toEqual([
      "the file must be a mapping of keys to values (for example `label: autogen`)",
    ]);
  });

  it("cannot name the model endpoint or secrets (those are server settings)", () => {
    expect(problemsOf("llm:\n  baseUrl: http://evil.example\n")).toEqual([
      'unknown key "llm" (known keys: label, triggers, verify, test, strategy, budgets, paths, diff, pullRequest)',
    ]);
    expect(problemsOf("test:\n  env:\n    'A B': x\n")[0]).toContain("test.env.A B");
  });

  it("the error message lists each problem on its own line", () => {
    expect(() => parseRepoConfigText("lable: x\n")).toThrow(
      '.github/autogen.yml is invalid:\n- unknown key "lable" (did you mean "label"?)',
    );
  });
});

describe("generated schema and docs", () => {
  it("schema/autogen.schema.json is up to date (run `npm run schema`)", async () => {
    const committed = JSON.parse(
      await readFile(new URL("../../schema/autogen.schema.json", import.meta.url), "utf8"),
    ) as unknown;
    expect(committed).toEqual(repoConfigJsonSchema());
  });

  it("docs/configuration.md is up to date and documents every field (run `npm run schema`)", async () => {
    const committed = await readFile(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    expect(committed).toBe(renderConfigDocs());
    const schema = repoConfigJsonSchema();
    for (const [section, node] of Object.entries(schema.properties ?? {})) {
      expect(committed).toContain(`| \`${section}\` |`);
      for (const field of Object.keys(node.properties ?? {}))
        expect(committed).toContain(`| \`${section}.${field}\` |`);
    }
  });

  it("the schema rejects unknown keys for editors too", () => {
    const schema = repoConfigJsonSchema();
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties?.budgets?.additionalProperties).toBe(false);
  });
});
