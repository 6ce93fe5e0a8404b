// The runner's side channels carry hostile text: escaped as the Actions toolkit escapes,
// so no text starts a command of its own or closes an output early; secrets scrubbed.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  escapeData,
  escapeProperty,
  outputEntry,
  workflowChannels,
  workflowCommand,
} from "../../src/action/workflow-commands.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { parseOutputFile } from "../support/run-action.ts";

describe("workflow commands", () => {
  it("escapes data and properties as @actions/core does", () => {
    expect(escapeData("100%\r\n::error::x")).toBe("100%25%0D%0A::error::x");
    expect(escapeProperty("a:b,c%\n")).toBe("a%3Ab%2Cc%25%0A");
    expect(
      workflowCommand("error", { file: "t.py,line=1", line: 3, title: undefined }, "boom\n::warning::injected"),
    ).toBe("::error file=t.py%2Cline=1,line=3::boom%0A::warning::injected");
    expect(workflowCommand("notice", {}, "plain")).toBe("::notice::plain");
  });

  it("writes outputs in the delimiter form, so a value with newlines and a fake delimiter stays one value", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-wc-"));
    const env = { GITHUB_OUTPUT: join(dir, "out"), GITHUB_STEP_SUMMARY: join(dir, "summary") };
    await writeFile(env.GITHUB_OUTPUT, "");
    const lines: string[] = [];
    const channels = workflowChannels(env, secretScrubber(["ghs_secretvalue123"]), (l) => lines.push(l));
    channels.setOutput("pr-url", "https://github.com/o/r/pull/1");
    channels.setOutput("outcome", "first\nEOF\nbranch=evil\nghs_secretvalue123");
    channels.appendSummary("## report with ghs_secretvalue123");
    channels.annotate({ level: "error", file: "a:b.py", message: "failed: ghs_secretvalue123" });
    const outputs = parseOutputFile(await readFile(env.GITHUB_OUTPUT, "utf8"));
    expect(Object.keys(outputs).sort()).toEqual(["outcome", "pr-url"]);
    expect(outputs["pr-url"]).toBe("https://github.com/o/r/pull/1");
    expect(outputs.outcome).toMatch(/^first\nEOF\nbranch=evil\n/);
    expect(outputs.outcome).not.toContain("ghs_secretvalue123");
    expect(await readFile(env.GITHUB_STEP_SUMMARY, "utf8")).not.toContain("ghs_secretvalue123");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^::error file=a%3Ab\.py::failed: /);
    expect(lines[0]).not.toContain("ghs_secretvalue123");
    expect(() => outputEntry("bad name", "x")).toThrow(/not an output name/);
  });
});
