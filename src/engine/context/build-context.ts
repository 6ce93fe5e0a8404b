// The code the model sees for a task: files named by the failing tests' stack frames
// first, then BM25 retrieval over files and symbols with the problem text, then (when
// more candidates remain than fit) the model narrowing them; all within a budget, with a
// bounded repository map beside it.
import type { LlmClient } from "../../llm/llm-client.ts";
import { UnsafePathError } from "../../workspace/safe-path.ts";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import { localizeSchema } from "../lpw/schemas.ts";
import { isSourceFile, repoFiles } from "./repo-files.ts";
import { RetrievalIndex } from "./retrieval-index.ts";
import { symbolsOf } from "./symbols.ts";

export type CodeContext = {
  files: string[];
  code: string;
  repoMap: string;
  ranking: Array<{ path: string; reason: "stack-frame" | "retrieval" | "model" }>;
};

export type ContextOptions = {
  query: string;
  /** Repository files named in failing tests' stack frames or ids, most relevant first. */
  mentioned: string[];
  isTestFile: (path: string) => boolean;
  maxChars?: number;
  maxFiles?: number;
  llm?: LlmClient | undefined;
};

export async function buildContext(workspace: string, options: ContextOptions): Promise<CodeContext> {
  const maxChars = options.maxChars ?? 24_000;
  const maxFiles = options.maxFiles ?? 4;
  const sources = repoFiles(workspace).filter(isSourceFile);
  const texts = new Map<string, string>();
  const index = new RetrievalIndex();
  const mapLines: string[] = [];
  for (const path of sources) {
    const text = await contextText(workspace, path);
    if (text === undefined) continue;
    texts.set(path, text);
    index.add(path, null, text.slice(0, 20_000));
    const symbols = await symbolsOf(path, text);
    for (const s of symbols) index.add(path, s.name, s.text.slice(0, 4000));
    mapLines.push(`${path}${symbols.length ? `: ${symbols.map((s) => s.name).join(", ")}` : ""}`);
  }
  const hits = index.search(options.query, 40);
  index.close();

  const ranking: CodeContext["ranking"] = [];
  const seen = new Set<string>();
  const push = (path: string, reason: CodeContext["ranking"][number]["reason"]) => {
    if (!seen.has(path) && texts.has(path)) {
      seen.add(path);
      ranking.push({ path, reason });
    }
  };
  for (const path of options.mentioned) if (!options.isTestFile(path)) push(path, "stack-frame");
  for (const hit of hits) if (!options.isTestFile(hit.path)) push(hit.path, "retrieval");
  for (const path of options.mentioned) push(path, "stack-frame");

  const repoMap = bounded(mapLines, Math.floor(maxChars / 6));
  let chosen = ranking.map((r) => r.path);
  if (options.llm && chosen.length > maxFiles) {
    const candidates = chosen.slice(0, 15).map((p) => `${p}\n${(texts.get(p) ?? "").split("\n").slice(0, 12).join("\n")}`);
    const { value } = await options.llm.call("localize", { untrusted: { problem: options.query, repoMap, candidates: candidates.join("\n\n") }, trusted: { maxFiles: String(maxFiles) } }, localizeSchema);
    const picked = value.files.filter((f) => texts.has(f));
    if (picked.length > 0) {
      chosen = [...picked, ...chosen.filter((p) => !picked.includes(p))];
      for (const p of picked) {
        const entry = ranking.find((r) => r.path === p);
        if (entry) entry.reason = "model";
      }
    }
  }

  const parts: string[] = [];
  const files: string[] = [];
  let used = 0;
  for (const path of chosen.slice(0, maxFiles)) {
    const numbered = (texts.get(path) ?? "")
      .split("\n")
      .map((line, i) => `${String(i + 1).padStart(4)} | ${line}`)
      .join("\n");
    const part = `--- ${path}\n${numbered}`;
    if (used + part.length > maxChars && files.length > 0) break;
    parts.push(part.length > maxChars ? `${part.slice(0, maxChars)}\n… (truncated)` : part);
    files.push(path);
    used += part.length;
  }
  return { files, code: parts.join("\n\n"), repoMap, ranking };
}

/** A file's text for the model, or undefined when it is not a regular worktree file (a link put there since the listing). */
async function contextText(workspace: string, path: string): Promise<string | undefined> {
  try {
    return await readWorktreeText(workspace, path);
  } catch (error) {
    if (error instanceof UnsafePathError) return undefined;
    throw error;
  }
}

function bounded(lines: string[], maxChars: number): string {
  const out: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > maxChars) {
      out.push(`… (${lines.length - out.length} more files)`);
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  return out.join("\n");
}
