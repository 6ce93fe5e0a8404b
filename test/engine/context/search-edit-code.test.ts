// The code SLPW's and SEIDR's edit prompts show. Live, SEIDR's drafts on js-yaml showed the two
// functions at fault only as signatures: the reproduce prompt had shown them whole (found by the
// issue's words), and the edit context left out every symbol found by words, which only a plan
// makes safe to do.
import { describe, expect, it } from "vitest";
import type { CodeContext } from "../../../src/engine/context/build-context.ts";
import { searchEditCode } from "../../../src/engine/context/search-edit-code.ts";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { WorkspaceChanges } from "../../../src/engine/lpw/workspace-changes.ts";
import { writeRepo } from "../../support/python-task.ts";

const filler = Array.from(
  { length: 60 },
  (_, i) => `def helper_${i}(x):\n    """Add ${i}: one of the small steps of the dump."""\n    return x + ${i}\n`,
).join("\n\n");
const SOURCE = `${filler}\n\ndef choose_style(text):\n    if ":" in text:\n        return "plain"\n    return "quoted"\n`;

async function setup() {
  const dir = await writeRepo({ "dumper.py": SOURCE });
  const start = {
    files: ["dumper.py"],
    ranking: [{ path: "dumper.py", reason: "retrieval" }],
    symbols: [{ path: "dumper.py", name: "choose_style", startLine: 301, endLine: 304, reason: "retrieval" }],
  } as unknown as CodeContext;
  return {
    workspace: dir,
    problem: "values holding a colon come out wrong",
    start,
    changes: new WorkspaceChanges(dir),
    isTestFile,
  };
}

describe("the code of a search's edit prompts", () => {
  it("with no plan (SEIDR), keeps the symbols the start's context found by the issue's words", async () => {
    const code = await searchEditCode(await setup(), [], []);
    expect(code).toMatch(/\d+\| {4}if ":" in text:/);
  });

  it("with a plan (SLPW), leaves those to the plan: the symbols it names are shown", async () => {
    const options = await setup();
    expect(await searchEditCode(options, ["Keep helper_3 as it is"], [])).not.toMatch(/if ":" in text:/);
    expect(await searchEditCode(options, ["In choose_style, quote text with a colon"], [])).toMatch(
      /\d+\| {4}if ":" in text:/,
    );
  });
});
