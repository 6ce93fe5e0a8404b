// The breakage loader: cidiff's marks count universal lines (as the digest does), LogChunks'
// marks count \n-lines and a lone \r inside such a line (a Travis fold marker, a progress bar)
// is translated into the digest's numbering. Real files in a temporary directory.
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lineNumberingOf, loadBreakages, universalLinesOfLf } from "../../src/eval/breakage-cases.ts";

describe("breakage cases", () => {
  it("map each \\n-line to the universal lines it spans", () => {
    expect(universalLinesOfLf("a\ntravis_fold:start:x\r\u001b[0Kb\r\nc")).toEqual([
      [1, 1],
      [2, 3],
      [4, 4],
    ]);
  });

  it("translate LogChunks marks, told apart by the data set's README, and keep cidiff's", async () => {
    const root = await mkdtemp(join(tmpdir(), "breakages-"));
    const write = async (dir: string, readme: string) => {
      await mkdir(join(root, dir, "Go_case_1"), { recursive: true });
      await writeFile(join(root, dir, "README.md"), readme);
      await writeFile(
        join(root, dir, "Go_case_1", "fail.log"),
        'setup\nfold\r\u001b[0Kprogress\n--- FAIL: TestX\nThe command "go test" exited with 1.\n',
      );
      await writeFile(join(root, dir, "Go_case_1", "groundtruth"), "DEFAULT\nE 3-3\n");
      return join(root, dir);
    };
    const logchunks = await write("logchunks", "# logchunks-dev\nSource: LogChunks (MSR 2020)\n");
    const cidiff = await write("cidiff", "# cidiff breakages\n");
    expect(lineNumberingOf(logchunks)).toBe("lf");
    expect(lineNumberingOf(cidiff)).toBe("universal");
    expect([...(loadBreakages(logchunks, "lf")[0]?.errorLines ?? [])]).toEqual([4]);
    expect([...(loadBreakages(cidiff, "universal")[0]?.errorLines ?? [])]).toEqual([3]);
  });
});
