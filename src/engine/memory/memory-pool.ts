// Memory of past fixes (RGD): when a fix is accepted, its task, plan, verification and
// keywords are stored; a new task retrieves the most similar ones by BM25 (SQLite FTS5),
// blended with embedding similarity when the caller has embeddings. Entries are scoped:
// a repository (and installation) only ever sees its own.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { migrateSqlite } from "../../jobs/migrate-sqlite.ts";
import { queryWords, splitIdentifiers } from "../context/retrieval-index.ts";

/** The memory store's schema, one entry per version; never edit one that has shipped, add the next. */
export const MEMORY_MIGRATIONS = [
  // 1: entries and their full-text index (the schema from before versioning, verbatim).
  `CREATE TABLE IF NOT EXISTS memory (id INTEGER PRIMARY KEY AUTOINCREMENT, installation TEXT NOT NULL, repository TEXT NOT NULL,
     task TEXT NOT NULL, plan TEXT NOT NULL, verification TEXT NOT NULL, keywords TEXT NOT NULL, embedding TEXT, created_at INTEGER NOT NULL);
   CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(text, content='');`,
] as const;

export type MemoryScope = { installation: string; repository: string };
export type MemoryEntry = {
  task: string;
  plan: string[];
  verification: string;
  keywords: string[];
  embedding?: number[] | undefined;
};
export type Recalled = MemoryEntry & { id: number; score: number };

export class MemoryPool {
  private readonly db: DatabaseSync;

  constructor(path: string) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = new DatabaseSync(path);
    this.db.exec("PRAGMA busy_timeout = 5000;");
    migrateSqlite(this.db, "memory", MEMORY_MIGRATIONS);
  }

  remember(scope: MemoryScope, entry: MemoryEntry): number {
    const row = this.db
      .prepare(
        "INSERT INTO memory (installation, repository, task, plan, verification, keywords, embedding, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        scope.installation,
        scope.repository,
        entry.task,
        JSON.stringify(entry.plan),
        entry.verification,
        entry.keywords.join(" "),
        entry.embedding ? JSON.stringify(entry.embedding) : null,
        Date.now(),
      );
    const id = Number(row.lastInsertRowid);
    this.db
      .prepare("INSERT INTO memory_fts (rowid, text) VALUES (?, ?)")
      .run(id, splitIdentifiers(`${entry.keywords.join(" ")} ${entry.task} ${entry.plan.join(" ")}`));
    return id;
  }

  /** The `limit` most similar entries of this scope; with embeddings, BM25 rank and cosine similarity are blended. */
  recall(
    scope: MemoryScope,
    query: string,
    options: { limit?: number; embedding?: number[]; weight?: number } = {},
  ): Recalled[] {
    const limit = options.limit ?? 3;
    const words = queryWords(query);
    if (words.length === 0) return [];
    const rows = this.db
      .prepare(
        `SELECT m.id, m.task, m.plan, m.verification, m.keywords, m.embedding, bm25(memory_fts) AS rank
         FROM memory_fts JOIN memory m ON m.id = memory_fts.rowid
         WHERE memory_fts MATCH ? AND m.installation = ? AND m.repository = ?
         ORDER BY rank LIMIT ?`,
      )
      .all(words.map((w) => `"${w}"`).join(" OR "), scope.installation, scope.repository, limit * 5) as Array<{
      id: number;
      task: string;
      plan: string;
      verification: string;
      keywords: string;
      embedding: string | null;
      rank: number;
    }>;
    const best = Math.max(...rows.map((r) => -r.rank), 1e-9);
    const weight = options.weight ?? 0.5;
    return rows
      .map((r) => {
        const embedding = r.embedding ? (JSON.parse(r.embedding) as number[]) : undefined;
        const lexical = -r.rank / best;
        const semantic = options.embedding && embedding ? cosine(options.embedding, embedding) : undefined;
        const score = semantic === undefined ? lexical : (1 - weight) * lexical + weight * semantic;
        return {
          id: r.id,
          task: r.task,
          plan: JSON.parse(r.plan) as string[],
          verification: r.verification,
          keywords: r.keywords.split(" ").filter(Boolean),
          embedding,
          score,
        };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }

  close(): void {
    this.db.close();
  }
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Recalled plans as the plan stage's examples. */
export function formatMemory(recalled: readonly Recalled[]): string {
  if (recalled.length === 0) return "(none)";
  return recalled
    .map(
      (r, i) =>
        `Example ${i + 1}: ${r.task.split("\n")[0]}\nPlan:\n${r.plan.map((s, k) => `${k + 1}. ${s}`).join("\n")}`,
    )
    .join("\n\n");
}
