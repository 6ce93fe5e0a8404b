// Shared shapes of the code-context builder: what it is asked (options), what it reads of a
// file, what it focuses on and what it returns.
import type { LlmClient } from "../../llm/llm-client.ts";
import type { ImportLines } from "./import-lines.ts";
import type { LineRange } from "./line-ranges-view.ts";
import type { ModuleName } from "./module-names.ts";
import type { CodeSymbol } from "./symbols.ts";

export type ContextReason = "stack-frame" | "reached" | "named" | "model" | "retrieval";

export type CodeContext = {
  /** Files with code shown, most relevant first. */
  files: string[];
  /** The shown code, then related signatures and a short map of the other files. */
  code: string;
  repoMap: string;
  ranking: Array<{ path: string; reason: ContextReason }>;
  /** The symbols shown whole (or as an outline when over the budget), most relevant first. */
  symbols: Array<{ path: string; name: string; startLine: number; endLine: number; reason: ContextReason }>;
};

/** A line of a repository file a failing test's stack passed through. */
export type Frame = { file: string; line: number };

export type ContextOptions = {
  query: string;
  /** Repository files named in failing tests' stack frames or ids, or in the issue, most relevant first. */
  mentioned: string[];
  /** Stack frames of the failures, innermost first. */
  frames?: Frame[];
  /** Identifiers the issue names (functions, classes, methods). */
  named?: string[];
  /** When given, a named identifier is looked up only in these files (an edit's focal files). */
  namedIn?: string[];
  /** The issue: the code it shows (imports, calls) is followed like a failing test's. */
  issue?: string;
  /**
   * The part of the query that says what the code is about (the issue and the failing tests' names), against which
   * the rest (the failures' output, its values) counts less when the reached code is ranked. Default: the issue.
   */
  about?: string;
  isTestFile: (path: string) => boolean;
  /** The budget for the code shown, callers' signatures, the map of other files and markers included. */
  maxChars?: number;
  /**
   * Callers' and callees' signatures and the map of other files after the code (default true). An edit's context
   * leaves them out: only the lines shown can be edited, and the plan already says where. Without them, a symbol
   * only retrieval found (a shared word) is left out too, not shown by its signature.
   */
  surroundings?: boolean;
  maxFiles?: number;
  llm?: LlmClient | undefined;
};

export type SourceFile = {
  path: string;
  text: string;
  lines: string[];
  symbols: CodeSymbol[];
  imports: ImportLines[];
  moduleNames: ModuleName[];
};
export type Focus = { path: string; symbol: CodeSymbol | undefined; range?: LineRange; reason: ContextReason };
