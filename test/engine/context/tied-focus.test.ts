// Two long functions the issue's code reaches, each over the code budget's room beside the
// other: the ranking decides. A clear winner is shown alone (js-yaml's readBlockMapping for a
// block-mapping bug, without readFlowCollection); when the second scores almost as high (a flow
// bug, where readFlowCollection ranked just below readBlockMapping), both are shown whole.
// Real files, the real tree-sitter parser.
import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { issueContext } from "../../../src/engine/reproduce/reproduce-issue.ts";
import { writeRepo } from "../../support/python-task.ts";

function fn(name: string, lines: number, statement: (i: number) => string): string {
  return `def ${name}(state, offset):\n${Array.from({ length: lines }, (_, i) => `    ${statement(i)}`).join("\n")}\n    return state\n`;
}

/** pkg.load reaches both readers: the block reader is over a budget of 7,000 characters, both together under 12,000. */
function loader(blockWords: string, flowWords: string): string {
  return [
    fn("read_block", 84, (i) => `key_${i} = state.block_key_line(offset + ${i})  # ${blockWords}`),
    fn("read_flow", 56, (i) => `item_${i} = state.flow_item(offset + ${i})  # ${flowWords}`),
    "def load(text):\n    state = {'text': text}\n    if text.startswith('['):\n        return read_flow(state, 0)\n    return read_block(state, 0)\n",
  ].join("\n\n");
}

async function contextFor(source: string, issue: string): Promise<string> {
  const dir = await writeRepo({ "pkg/__init__.py": "from .loader import load\n", "pkg/loader.py": source });
  try {
    return (await issueContext(dir, issue, isTestFile)).code;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("two long functions the issue's code reaches", () => {
  it("shows the clear best one whole and not the other", async () => {
    const source = loader("a mapping key on the same line", "a key of a flow item");
    expect(source.length).toBeGreaterThan(9_000);
    const code = await contextFor(
      source,
      "load() accepts a second mapping key on the same line\n\n    import pkg\n    pkg.load('a: 1 b: 2')\n",
    );
    expect(code).toContain("key_83 = state.block_key_line(offset + 83)");
    expect(code).not.toContain("item_55 = state.flow_item(offset + 55)");
  });

  it("shows both whole when the second ranks almost as high as the first", async () => {
    const source = loader("an empty entry in the text", "an empty entry in the text");
    const code = await contextFor(
      source,
      "load() reads an empty entry as None instead of raising\n\n    import pkg\n    pkg.load('[a, , b]')\n",
    );
    expect(code).toContain("key_83 = state.block_key_line(offset + 83)");
    expect(code).toContain("item_55 = state.flow_item(offset + 55)");
  });
});
