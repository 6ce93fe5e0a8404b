// Runs the behaviour harness of the tests' language (behaviour-language.ts) on one
// checkout in the sandbox, as the tests run there: argv only, the tests' environment, our
// own directory for the request and the result. A call the language refuses (a JavaScript
// statement) is not sent: its output is "not run" with the reason. The result is written
// by a process that ran repository code, so it is read back like a worktree file (no
// links, bounded) and parsed.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { runSandboxed, type SandboxOptions } from "../../verify/sandbox/run-sandboxed.ts";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import type { BehaviourRequest } from "./behaviour-calls.ts";
import type { BehaviourLanguage } from "./behaviour-language.ts";
import type { CallOutput } from "./behaviour-table.ts";
import { makeTempDir, removeTempDir } from "../../workspace/temp-dirs.ts";

/** Seconds one call may take. */
export const CALL_LIMIT_SECONDS = 5;
const RESULT_LIMIT = 1024 * 1024;

const outputSchema = z.union([
  z.object({ kind: z.literal("value"), repr: z.string() }),
  z.object({ kind: z.literal("raised"), type: z.string(), message: z.string().optional() }),
  z.object({ kind: z.literal("timeout") }),
  z.object({ kind: z.literal("invalid"), message: z.string() }),
]);
const resultSchema = z.object({
  module: z.string(),
  error: z.string().optional(),
  calls: z.array(z.object({ output: outputSchema, expected: outputSchema.nullable() })),
});

export type HarnessResult =
  { ok: true; outputs: CallOutput[]; expected: Array<CallOutput | undefined> } | { ok: false; reason: string };

export async function runBehaviourHarness(
  dir: string,
  request: BehaviourRequest,
  sandbox: Omit<SandboxOptions, "cwd">,
  language: BehaviourLanguage,
): Promise<HarnessResult> {
  const refusals = await Promise.all(
    request.calls.map(async (c) => ({
      call: await language.refuseCall(c.call),
      expected: c.expected === undefined ? undefined : await language.refuseCall(c.expected),
    })),
  );
  const sent = request.calls.flatMap((c, i) =>
    refusals[i]?.call
      ? []
      : [{ index: i, call: c.call, expected: refusals[i]?.expected ? null : (c.expected ?? null) }],
  );
  const own = await makeTempDir("autogen-behaviour-");
  try {
    const requestPath = join(own, "request.json");
    const calls = sent.map(({ call, expected }) => ({ call, expected }));
    await writeFile(requestPath, JSON.stringify({ module: request.module, calls, limit: CALL_LIMIT_SECONDS }));
    const timeoutMs = Math.min(sandbox.timeoutMs, (calls.length * 2 + 2) * CALL_LIMIT_SECONDS * 1000 + 30_000);
    const run = await runSandboxed(language.argv(requestPath, join(own, "result.json")), {
      ...sandbox,
      cwd: dir,
      timeoutMs,
      env: { ...sandbox.env, ...language.env },
      readOnlyPaths: [...(sandbox.readOnlyPaths ?? []), join(dir, ".git")],
      writablePaths: [...(sandbox.writablePaths ?? []), own],
    });
    let text: string;
    try {
      text = await readWorktreeText(own, "result.json", { maxBytes: RESULT_LIMIT });
    } catch {
      const why = run.spawnError ?? run.limit?.message ?? `exit code ${String(run.exitCode)}`;
      const tail = run.output.trim().split("\n").slice(-1)[0] ?? "";
      return { ok: false, reason: `the harness wrote no result (${why}${tail ? `: ${tail.slice(0, 200)}` : ""})` };
    }
    const parsed = resultSchema.safeParse(safeJson(text));
    if (!parsed.success) return { ok: false, reason: "the harness's result is not in its format" };
    if (parsed.data.error) return { ok: false, reason: parsed.data.error };
    const ran = parsed.data.calls;
    const outputs: CallOutput[] = request.calls.map((_, i) => {
      const refused = refusals[i]?.call;
      if (refused) return { kind: "invalid", message: refused };
      const at = sent.findIndex((s) => s.index === i);
      return ran[at]?.output ?? { kind: "missing", message: "the harness gave no output" };
    });
    const expected = request.calls.map((_, i): CallOutput | undefined => {
      const refused = refusals[i]?.expected;
      if (refused) return { kind: "invalid", message: refused };
      const at = sent.findIndex((s) => s.index === i);
      return ran[at]?.expected ?? undefined;
    });
    return { ok: true, outputs, expected };
  } finally {
    await removeTempDir(own);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
