// Knowledge search (CoCoST's search, over what is on disk): the repository's own docs and
// its installed dependencies' type definitions and sources, chunked and ranked by BM25.
// An external provider can sit behind the same interface; none is configured by default.
import { lstatSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { tryReadWorktreeTextSync } from "../../workspace/read-worktree-file.ts";
import { safeRepoPath, UnsafePathError } from "../../workspace/safe-path.ts";
import { RetrievalIndex } from "../context/retrieval-index.ts";

export type Snippet = { source: string; text: string };
export type KnowledgeProvider = { name: string; search(queries: string[], limit: number): Promise<Snippet[]> };

const CHUNK_LINES = 30;
const MAX_FILES = 2000;

/** Docs (README, docs/**) and dependency definitions (node_modules *.d.ts, a local venv's packages). */
export function onDiskKnowledge(workspace: string): KnowledgeProvider {
  let index: RetrievalIndex | undefined;
  const chunks = new Map<string, string>();
  const build = () => {
    index = new RetrievalIndex();
    let files = 0;
    const add = (path: string) => {
      if (files++ > MAX_FILES) return;
      const text = tryReadWorktreeTextSync(workspace, relative(workspace, path), { maxBytes: 512 * 1024 });
      if (text === undefined) return;
      const lines = text.split("\n");
      for (let i = 0; i < lines.length; i += CHUNK_LINES) {
        const key = `${relative(workspace, path)}:${i + 1}`;
        const chunk = lines.slice(i, i + CHUNK_LINES).join("\n");
        chunks.set(key, chunk);
        index?.add(key, null, chunk);
      }
    };
    // Entries and starting points that are symbolic links are skipped: what is shown to the model stays inside the worktree.
    const walk = (dir: string, accept: (name: string) => boolean, depth: number) => {
      if (depth < 0 || !plain(dir)?.isDirectory()) return;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isSymbolicLink()) continue;
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full, accept, depth - 1);
        else if (entry.isFile() && accept(entry.name) && (plain(full)?.size ?? Infinity) < 512 * 1024) add(full);
      }
    };
    for (const name of readdirSync(workspace))
      if (/^readme/i.test(name) && plain(join(workspace, name))?.isFile()) add(join(workspace, name));
    walk(join(workspace, "docs"), (n) => /\.(md|rst|txt)$/.test(n), 4);
    walk(join(workspace, "node_modules"), (n) => n.endsWith(".d.ts"), 3);
    for (const venv of [".venv", "venv"]) {
      const lib = join(workspace, venv, "lib");
      if (plain(lib)?.isDirectory())
        for (const py of readdirSync(lib))
          walk(join(lib, py, "site-packages"), (n) => n.endsWith(".py") || n.endsWith(".pyi"), 2);
    }
  };
  /** The entry at a full path under the workspace when no part of it below the workspace is a symbolic link. */
  const plain = (full: string) => {
    try {
      return lstatSync(safeRepoPath(workspace, relative(workspace, full)), { throwIfNoEntry: false });
    } catch (error) {
      if (error instanceof UnsafePathError) return undefined;
      throw error;
    }
  };
  return {
    name: "on-disk",
    async search(queries, limit) {
      if (!index) build();
      const seen = new Set<string>();
      const out: Snippet[] = [];
      for (const query of queries) {
        for (const hit of index?.search(query, limit) ?? []) {
          if (seen.has(hit.path) || out.length >= limit) continue;
          seen.add(hit.path);
          out.push({ source: hit.path, text: chunks.get(hit.path) ?? "" });
        }
      }
      return out;
    },
  };
}

export function formatKnowledge(facts: string[], snippets: Snippet[]): string {
  const parts = [facts.length ? `Facts:\n${facts.map((f) => `- ${f}`).join("\n")}` : "Facts: (none)"];
  for (const s of snippets) parts.push(`From ${s.source}:\n${s.text}`);
  return parts.join("\n\n");
}
