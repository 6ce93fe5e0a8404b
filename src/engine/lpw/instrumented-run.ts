// LPW's "print statements" in a real repository: the model's temporary logging is
// applied to a scratch copy of the workspace, the first failing test runs there, the
// trace is captured, and the copy is thrown away.
import { cp } from "node:fs/promises";
import type { Verifier } from "../../verify/local-verifier.ts";
import { applyEdits, type Edit } from "../../workspace/apply-edits.ts";
import { revokeGrants, shareGrants } from "../../verify/sandbox/workspace-grants.ts";
import { makeTempDir, removeTempDir } from "../../workspace/temp-dirs.ts";

export async function instrumentedRun(
  workspace: string,
  edits: Edit[],
  testId: string,
  verifier: Verifier,
): Promise<{ trace: string; durationMs: number }> {
  const scratch = await makeTempDir("autogen-debug-");
  try {
    await cp(workspace, scratch, { recursive: true, filter: (src) => !src.split("/").includes(".git") });
    // The copy's node_modules link and installed dependencies are the workspace's: shown to it as well.
    shareGrants(workspace, scratch);
    try {
      await applyEdits(scratch, edits);
    } catch (error) {
      return {
        trace: `(the instrumentation did not apply: ${(error as Error).message.split("\n")[0]})`,
        durationMs: 0,
      };
    }
    const report = await verifier.run(scratch, { kind: "tests", ids: [testId] });
    const lines = report.run.output.split("\n");
    const traced = lines.filter((l) => l.includes("AUTOGEN-TRACE"));
    const trace = (traced.length > 0 ? traced : lines.slice(-60))
      .join("\n")
      .replaceAll(scratch, "<workspace>")
      .slice(0, 8000);
    return { trace, durationMs: report.run.durationMs };
  } finally {
    revokeGrants(scratch);
    await removeTempDir(scratch);
  }
}
