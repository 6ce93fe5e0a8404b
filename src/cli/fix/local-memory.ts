// The CLI's memory of past fixes (RGD): plans recalled for an issue like this one, and a
// fix accepted on the command line (--remember) stored for later tasks. One SQLite file in
// the data directory, scoped to the repository's origin.
import { join } from "node:path";
import { defaultDataDir } from "../../config/data-dir.ts";
import { MemoryPool, type Recalled } from "../../engine/memory/memory-pool.ts";
import type { Outcome, VisibleTests } from "../../engine/task.ts";
import type { LlmClient } from "../../llm/llm-client.ts";
import { runGit } from "../../workspace/run-git.ts";

export type LocalMemory = {
  recall: () => Promise<Recalled[]>;
  /** Stores a fixed outcome for similar tasks later. */
  remember: (outcome: Outcome, visible: VisibleTests) => void;
  close: () => void;
};

export async function localMemory(
  env: NodeJS.ProcessEnv,
  repo: string,
  issueText: string | undefined,
  llm: LlmClient | undefined,
): Promise<LocalMemory> {
  const memory = new MemoryPool(join(defaultDataDir(env), "memory.db"));
  const scope = { installation: "local", repository: await repositoryKey(repo) };
  let queryEmbedding: number[] | undefined;
  return {
    recall: async () => {
      if (!issueText) return [];
      // With embeddings from the provider, retrieval blends them with BM25.
      queryEmbedding = llm?.embed ? await llm.embed(issueText) : undefined;
      return memory.recall(scope, issueText, queryEmbedding ? { embedding: queryEmbedding } : {});
    },
    remember: (outcome, visible) => {
      const fix = outcome.plan.fix;
      memory.remember(scope, {
        task: issueText ?? `failing tests: ${visible.kind === "tests" ? visible.ids.join(", ") : "all"}`,
        plan: outcome.plan.steps ?? (fix ? [`${fix.family}: ${fix.description} at ${fix.file}:${fix.line}`] : []),
        verification: (outcome.plan.verification ?? [])
          .map((v) => `${v.test}: ${v.derived} (expected ${v.expected})`)
          .join("\n"),
        keywords: outcome.changedFiles.flatMap((f) => f.split(/[/.]/)).filter((w) => w.length > 2),
        embedding: queryEmbedding,
      });
    },
    close: () => memory.close(),
  };
}

/** A repository's identity for memory: its origin URL, or its path when it has none. */
async function repositoryKey(repo: string): Promise<string> {
  try {
    return (await runGit(["remote", "get-url", "origin"], { cwd: repo })).trim() || repo;
  } catch {
    return repo;
  }
}
