// Runs the behaviour harness (resources/python/autogen_behaviour.py) on one checkout in
// the sandbox, as the tests run there: argv only, the tests' environment, our own
// directory for the request and the result. The result is written by a process that ran
// repository code, so it is read back like a worktree file (no links, bounded) and parsed.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { pythonExecutable } from "../../verify/runners/python-executable.ts";
import { runSandboxed, type SandboxOptions } from "../../verify/sandbox/run-sandboxed.ts";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import type { BehaviourRequest } from "./behaviour-calls.ts";
import type { CallOutput } from "./behaviour-table.ts";

export const BEHAVIOUR_HARNESS = fileURLToPath(
  new URL("../../../resources/python/autogen_behaviour.py", import.meta.url),
);

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
): Promise<HarnessResult> {
  const own = await mkdtemp(join(tmpdir(), "autogen-behaviour-"));
  try {
    const requestPath = join(own, "request.json");
    const calls = request.calls.map((c) => ({ call: c.call, expected: c.expected ?? null }));
    await writeFile(requestPath, JSON.stringify({ module: request.module, calls, limit: CALL_LIMIT_SECONDS }));
    const timeoutMs = Math.min(sandbox.timeoutMs, (request.calls.length * 2 + 2) * CALL_LIMIT_SECONDS * 1000 + 30_000);
    const run = await runSandboxed([pythonExecutable(), BEHAVIOUR_HARNESS, requestPath, join(own, "result.json")], {
      ...sandbox,
      cwd: dir,
      timeoutMs,
      // Set orders and string hashes the same in both runs: a difference is the code's.
      env: { ...sandbox.env, PYTHONHASHSEED: "0", PYTHONDONTWRITEBYTECODE: "1" },
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
    return {
      ok: true,
      outputs: parsed.data.calls.map((c) => c.output),
      expected: parsed.data.calls.map((c) => c.expected ?? undefined),
    };
  } finally {
    await rm(own, { recursive: true, force: true });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
