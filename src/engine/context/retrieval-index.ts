// BM25 retrieval over a repository's files and symbols with SQLite FTS5 (node:sqlite),
// for finding the code an issue is about.
import { DatabaseSync } from "node:sqlite";

export type Hit = { path: string; symbol: string | null; score: number };

export class RetrievalIndex {
  private readonly db = new DatabaseSync(":memory:");

  constructor() {
    // Identifiers are split on case and underscores before indexing (see tokens()).
    this.db.exec(
      "CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, symbol UNINDEXED, body, tokenize = 'unicode61')",
    );
  }

  add(path: string, symbol: string | null, text: string): void {
    this.db
      .prepare("INSERT INTO docs (path, symbol, body) VALUES (?, ?, ?)")
      .run(path, symbol, `${path} ${symbol ?? ""} ${splitIdentifiers(text)}`);
  }

  /** Documents ranked by BM25 for any of the query's words (FTS syntax in the query is neutralised). */
  search(query: string, limit = 20): Hit[] {
    const words = queryWords(query);
    if (words.length === 0) return [];
    const match = words.map((w) => `"${w}"`).join(" OR ");
    const rows = this.db
      .prepare("SELECT path, symbol, bm25(docs) AS score FROM docs WHERE docs MATCH ? ORDER BY score LIMIT ?")
      .all(match, limit) as Array<{ path: string; symbol: string | null; score: number }>;
    return rows.map((r) => ({ path: r.path, symbol: r.symbol, score: -r.score }));
  }

  close(): void {
    this.db.close();
  }
}

/** `parseHttpRequest` and `parse_http_request` also match "parse http request". */
/** A query's distinct words of 3+ letters or digits, identifiers split, at most 64 (for an FTS MATCH). */
export function queryWords(query: string): string[] {
  return [
    ...new Set(
      splitIdentifiers(query)
        .toLowerCase()
        .match(/[\p{L}\p{N}]{3,}/gu) ?? [],
    ),
  ].slice(0, 64);
}

export function splitIdentifiers(text: string): string {
  return text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/_/g, " ");
}
