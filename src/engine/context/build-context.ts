// The code the model sees for a task, by symbol rather than by file prefix: the functions
// and classes the failing tests reach (their stack frames), those the issue names, those
// BM25 retrieval finds for the problem and those the model picks when more candidates
// remain than fit; each shown whole with its enclosing class header and the imports it
// uses, with true line numbers and a marker naming every line range left out. Then their
// callers and callees as signatures, and a short map of the rest of the repository.
// Documentation, configuration and generated files are left out unless named.
import { UnsafePathError } from "../../workspace/safe-path.ts";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import { notCodeContext } from "./context-exclusions.ts";
import { importLinesOf } from "./import-lines.ts";
import type { LineRange } from "./line-ranges-view.ts";
import { bounded, within } from "./bounded-lines.ts";
import {
  contextRanges,
  costOf,
  HELPER_LINES,
  isSmall,
  outline,
  signatureRanges,
  view,
  wholeOrOutline,
  withoutDocstring,
} from "./symbol-ranges.ts";
import { moduleNamesOf } from "./module-names.ts";
import { relatedSignatures } from "./related-signatures.ts";
import { isSourceFile, repoFiles } from "./repo-files.ts";
import { RetrievalIndex } from "./retrieval-index.ts";
import { shortName, symbolsOf, type CodeSymbol } from "./symbols.ts";
import { reachedFocus } from "./reached-focus.ts";

import type { CodeContext, ContextOptions, ContextReason, Focus, SourceFile } from "./context-types.ts";
import { localize, mapLine } from "./localize-files.ts";

export type { CodeContext, ContextOptions, ContextReason, Focus, Frame, SourceFile } from "./context-types.ts";

const MAX_SYMBOL_HITS = 8;
/** The evidence that makes a symbol focal (shown whole); retrieval alone shows a signature. */
const FOCAL: ReadonlySet<ContextReason> = new Set(["stack-frame", "reached", "named", "model"]);
/** What the failing tests (or the code) reach: the best-matching this many are shown whole. */
const REACHED_FOCAL = 4;
/** Callers and callees shown by their signatures, and the characters of the map of the other files. */
const RELATED_SIGNATURES = 6;
const OTHER_FILES_CHARS = 600;
/** The room of one large focal function: after at most half a budget of code, up to this many budgets; after more, the total up to this. */
const FIRST_FOCAL_BUDGETS = 3;
const LARGE_FOCAL_BUDGETS = 1.5;
/** With no focal symbol at all, this many retrieval hits are shown whole. */
const WHOLE_RETRIEVED_WITHOUT_FOCUS = 3;

export async function buildContext(workspace: string, options: ContextOptions): Promise<CodeContext> {
  const maxChars = options.maxChars ?? 8_000;
  const maxFiles = options.maxFiles ?? 5;
  const files = await loadSources(workspace, options);
  const index = new RetrievalIndex();
  for (const file of files.values()) {
    index.add(file.path, null, file.text.slice(0, 20_000));
    for (const s of file.symbols) index.add(file.path, s.name, s.text.slice(0, 4000));
  }
  const hits = index.search(options.query, 60);
  index.close();
  const isCode = (path: string) => files.has(path) && !options.isTestFile(path);

  const focus: Focus[] = [];
  for (const frame of options.frames ?? []) {
    const file = files.get(frame.file);
    if (!file || !isCode(frame.file)) continue;
    const symbol = innermost(file.symbols, frame.line);
    focus.push(
      symbol
        ? { path: file.path, symbol, reason: "stack-frame" }
        : {
            path: file.path,
            symbol: undefined,
            range: { start: frame.line - 3, end: frame.line + 3 },
            reason: "stack-frame",
          },
    );
  }
  const named: Focus[] = [];
  for (const name of options.named ?? []) {
    const matches = [...files.values()]
      .filter((f) => isCode(f.path) && (!options.namedIn || options.namedIn.includes(f.path)))
      .flatMap((f) =>
        f.symbols.filter((s) => s.name === name || shortName(s) === name).map((s) => ({ path: f.path, symbol: s })),
      );
    if (matches.length <= 3) for (const m of matches) named.push({ ...m, reason: "named" });
  }
  // A named class after the named functions and methods: shown whole, a long class took the
  // room of the function the plan edits (a plan's `Parser(…)` before the module's findall).
  focus.push(...named.filter((f) => f.symbol?.kind !== "class"), ...named.filter((f) => f.symbol?.kind === "class"));
  const retrieved: Focus[] = [];
  for (const hit of hits) {
    if (!isCode(hit.path)) continue;
    const file = files.get(hit.path) as SourceFile;
    const symbol = hit.symbol === null ? undefined : file.symbols.find((s) => s.name === hit.symbol);
    if (symbol) {
      if (retrieved.filter((r) => r.symbol).length < MAX_SYMBOL_HITS)
        retrieved.push({ path: hit.path, symbol, reason: "retrieval" });
    } else if (isSmall(file)) retrieved.push({ path: hit.path, symbol: undefined, reason: "retrieval" });
  }
  const reached = await reachedFocus(workspace, files, options, REACHED_FOCAL);
  if (reached.symbols.size > 0) {
    // Beside what the tests reach, a symbol retrieval found that they do not reach is weaker
    // evidence (the dumper's functions when the loader fails): it comes after those they reach.
    const isReached = (r: Focus) =>
      r.symbol ? reached.symbols.has(symbolKey(r.path, r.symbol)) : reached.modules.has(r.path);
    retrieved.splice(0, retrieved.length, ...retrieved.filter(isReached), ...retrieved.filter((r) => !isReached(r)));
  }
  for (const path of options.mentioned) {
    if (!isCode(path) || focus.some((f) => f.path === path)) continue;
    const best = retrieved.find((r) => r.path === path);
    focus.push(best ? { ...best, reason: "stack-frame" } : { path, symbol: undefined, reason: "stack-frame" });
  }

  const repoMap = bounded(
    [...files.values()].filter((f) => isCode(f.path)).map((f) => mapLine(f, true)),
    Math.floor(maxChars / 4),
  );
  const candidates = unique([...focus, ...retrieved].map((f) => f.path));
  let picked: Focus[] = [];
  // A stack frame or the issue already names the code: no call to ask the model where it is.
  const located = focus.some((f) => f.symbol !== undefined || f.range !== undefined) || reached.focus.length > 0;
  if (options.llm && candidates.length > maxFiles && !located)
    picked = await localize(options.llm, options.query, repoMap, candidates.slice(0, 15), files, retrieved, maxFiles, [
      ...(options.frames ?? []),
    ]);
  const ordered = [
    ...focus.filter((f) => f.reason === "stack-frame"),
    ...picked,
    ...focus.filter((f) => f.reason !== "stack-frame"),
    ...reached.focus,
    ...retrieved,
  ];

  const shown = choose(ordered, files, maxChars, maxFiles, options.surroundings !== false);
  const focal = shown.symbols.filter((f) => FOCAL.has(f.reason));
  const parts = [...shown.byFile.entries()].map(([path, ranges]) => view(files.get(path) as SourceFile, ranges));
  const shownSymbols = shown.symbols.map((f) => f.symbol as CodeSymbol);
  const related = relatedSignatures(
    (focal.length ? focal : shown.symbols).map((f) => ({ path: f.path, symbol: f.symbol as CodeSymbol })),
    [...files.values()].filter((f) => isCode(f.path)),
    RELATED_SIGNATURES,
  );
  const others = [...files.values()].filter((f) => isCode(f.path) && !shown.byFile.has(f.path)).map((f) => mapLine(f));
  // The signatures and the map take only the room the code left in the budget: they are the
  // first to go, never a focal symbol.
  let room = options.surroundings === false ? 0 : maxChars - parts.join("\n\n").length;
  const extra = (heading: string, lines: string[], cap: number, more: string): string => {
    const text = within(lines, Math.min(cap, room - heading.length - 3), more);
    if (!text) return "";
    room -= heading.length + text.length + 3;
    return `${heading}\n${text}`;
  };
  const code = [
    parts.join("\n\n"),
    extra(
      "Callers and callees of the code above (signatures only; path:line):",
      related ? related.split("\n") : [],
      Number.POSITIVE_INFINITY,
      "signatures",
    ),
    extra("Other source files (path: top-level symbols):", others, OTHER_FILES_CHARS, "files"),
  ]
    .filter((s) => s !== "")
    .join("\n\n");
  return {
    files: [...shown.byFile.keys()],
    code,
    repoMap,
    ranking: unique(ordered.map((f) => f.path)).map((path) => ({
      path,
      reason: (ordered.find((f) => f.path === path) as Focus).reason,
    })),
    symbols: shown.symbols.map((f, i) => ({
      path: f.path,
      name: (shownSymbols[i] as CodeSymbol).name,
      startLine: (shownSymbols[i] as CodeSymbol).outerStart,
      endLine: (shownSymbols[i] as CodeSymbol).endLine,
      reason: f.reason,
    })),
  };
}

async function loadSources(workspace: string, options: ContextOptions): Promise<Map<string, SourceFile>> {
  const out = new Map<string, SourceFile>();
  for (const path of repoFiles(workspace).filter(isSourceFile)) {
    const text = await contextText(workspace, path);
    if (text === undefined) continue;
    const named = options.mentioned.includes(path) || options.query.includes(path);
    if (!named && notCodeContext(path, text.slice(0, 2000))) continue;
    out.set(path, {
      path,
      text,
      lines: text.split("\n"),
      symbols: await symbolsOf(path, text),
      imports: await importLinesOf(path, text),
      moduleNames: await moduleNamesOf(path, text),
    });
  }
  return out;
}

/** The smallest function, method or class around a line. */
function innermost(symbols: CodeSymbol[], line: number): CodeSymbol | undefined {
  return symbols
    .filter((s) => s.outerStart <= line && line <= s.endLine)
    .sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
}

/** The ranges to show, file by file, within the budget: whole symbols, or (over it) a class's outline or a signature. */
function choose(
  ordered: Focus[],
  files: Map<string, SourceFile>,
  maxChars: number,
  maxFiles: number,
  weakSignatures: boolean,
): { byFile: Map<string, LineRange[]>; symbols: Focus[] } {
  const byFile = new Map<string, LineRange[]>();
  const symbols: Focus[] = [];
  const seen = new Set<string>();
  let used = 0;
  let largeShown = false;
  const anyFocal = ordered.some((f) => FOCAL.has(f.reason) && (f.symbol || f.range));
  let wholeRetrieved = 0;
  const focalTexts = ordered
    .filter((f) => FOCAL.has(f.reason) && f.symbol)
    .map((f) => (f.symbol as CodeSymbol).text.split("\n").slice(1).join("\n"));
  for (const f of ordered) {
    const file = files.get(f.path) as SourceFile;
    const key = `${f.path}#${f.symbol?.name ?? f.range?.start ?? "whole"}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!byFile.has(f.path) && byFile.size >= maxFiles) continue;
    const current = byFile.get(f.path) ?? [];
    // A short file is shown whole whatever in it was pointed at.
    const whole = (f.symbol === undefined && f.range === undefined) || isSmall(file);
    // Retrieval alone (a shared word) is weak evidence: beside focal code such a symbol is a signature.
    // A retrieved function the focal code calls by its name is strongly evidenced: shown whole.
    // A definition of the same name in a focal class (`def __bool__(`) is not a call of it.
    const calledByFocal =
      f.symbol !== undefined &&
      f.symbol.endLine - f.symbol.outerStart < HELPER_LINES &&
      focalTexts.some((t) =>
        new RegExp(
          `(?<![\\w$.])(?<!\\b(?:def|function)\\s+)${escapeRegExp(shortName(f.symbol as CodeSymbol))}\\s*\\(`,
        ).test(t),
      );
    const weak =
      !FOCAL.has(f.reason) && !calledByFocal && (anyFocal || wholeRetrieved >= WHOLE_RETRIEVED_WITHOUT_FOCUS);
    // A short file retrieved as a whole: the map below names it.
    if (weak && f.symbol === undefined) continue;
    // An edit's context shows what can be edited: a shared word's signature is noise there.
    if (weak && !weakSignatures) continue;
    if (weak) {
      const ranges = signatureRanges(file, f.symbol as CodeSymbol);
      const cost = costOf(file, current, ranges);
      if (used + cost > maxChars) continue;
      byFile.set(f.path, [...current, ...ranges]);
      used += cost;
      symbols.push(f);
      continue;
    }
    const body: LineRange[] = whole
      ? wholeOrOutline(file)
      : f.symbol
        ? [{ start: f.symbol.outerStart, end: f.symbol.endLine }]
        : [f.range as LineRange];
    const context = f.symbol && !whole ? contextRanges(file, f.symbol) : [];
    let ranges = [...context, ...body];
    let cost = costOf(file, current, ranges);
    // One large function a failure or the issue points at may go over the budget (the target is
    // often the long one): alone or after a little code (half a budget), up to three budgets; after
    // more, up to one and a half in all (three let two 150-line js-yaml loader functions beside
    // the target into every prompt). Others fit the budget.
    const large = f.symbol !== undefined && FOCAL.has(f.reason) && !largeShown;
    const over = (c: number) =>
      c > maxChars * FIRST_FOCAL_BUDGETS ||
      (used > 0 &&
        used + c > (large ? maxChars * (used <= maxChars / 2 ? FIRST_FOCAL_BUDGETS : LARGE_FOCAL_BUDGETS) : maxChars));
    if (over(cost) && f.symbol && !whole && FOCAL.has(f.reason)) {
      // Code a failure or the issue points at is worth more than its helpers: the symbol whole
      // without them, else without its docstring (a marker names the lines left out).
      for (const bare of [body, withoutDocstring(file, f.symbol)]) {
        const c = costOf(file, current, bare);
        if (!over(c)) {
          [ranges, cost] = [bare, c];
          break;
        }
      }
    }
    if (over(cost)) {
      if (!f.symbol) continue;
      // Over the budget: the class's outline (header and method signatures), or the signature alone.
      ranges = [...context, ...outline(file, f.symbol)];
      cost = costOf(file, current, ranges);
      if (used + cost > maxChars) continue;
    }
    byFile.set(f.path, [...current, ...ranges]);
    if (large && used + cost > maxChars) largeShown = true;
    used += cost;
    if (f.symbol) symbols.push(f);
    if (!FOCAL.has(f.reason)) wholeRetrieved += 1;
  }
  return { byFile, symbols };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
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

export function symbolKey(path: string, symbol: CodeSymbol): string {
  return `${path}#${symbol.name}#${symbol.startLine}`;
}
