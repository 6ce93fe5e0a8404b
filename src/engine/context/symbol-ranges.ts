// The line ranges a chosen symbol is shown by (whole, without its docstring, as a signature,
// as an outline of its class, with the class header and imports it needs) and what they
// cost in the code the model sees.
import { numberedWhole, renderRanges, type LineRange } from "./line-ranges-view.ts";
import type { CodeSymbol } from "./symbols.ts";
import type { SourceFile } from "./context-types.ts";

/** A file this short (in lines and characters) is shown whole when it is chosen; a longer one by its symbols. */
const SMALL_FILE_LINES = 80;
const SMALL_FILE_CHARS = 2_000;
/** A module-level assignment longer than this is shown by its first lines. */
const MODULE_NAME_LINES = 30;
/** A same-module helper the focal code uses is shown whole up to this many lines, else by its signature. */
export const HELPER_LINES = 25;

/** A Python function or class without the docstring opening its body (the same ranges when it has none). */
export function withoutDocstring(file: SourceFile, symbol: CodeSymbol): LineRange[] {
  const first = symbol.headerEnd + 1;
  const opening = /^\s*[rRuUbB]?("""|''')/.exec(file.lines[first - 1] ?? "");
  if (!file.path.endsWith(".py") || !opening) return [{ start: symbol.outerStart, end: symbol.endLine }];
  const quote = opening[1] as string;
  const rest = (file.lines[first - 1] ?? "").slice(opening[0].length);
  let last = first;
  if (!rest.includes(quote))
    for (let n = first + 1; n <= symbol.endLine; n++)
      if ((file.lines[n - 1] ?? "").includes(quote)) {
        last = n;
        break;
      }
  return [
    { start: symbol.outerStart, end: first - 1 },
    { start: last + 1, end: symbol.endLine },
  ];
}

/** What a symbol needs beside itself: the header of its class and the imports its text uses. */
export function contextRanges(file: SourceFile, symbol: CodeSymbol): LineRange[] {
  const out: LineRange[] = [];
  const owner =
    symbol.kind === "method"
      ? file.symbols.find((s) => s.kind === "class" && s.name === symbol.name.split(".").slice(0, -1).join("."))
      : undefined;
  if (owner) {
    const firstMember = file.symbols.find(
      (s) => s.startLine > owner.startLine && s.outerStart > owner.headerEnd && s.name.startsWith(`${owner.name}.`),
    );
    const end = Math.min(firstMember ? firstMember.outerStart - 1 : owner.headerEnd, owner.headerEnd + 8);
    out.push({ start: owner.outerStart, end: Math.max(owner.headerEnd, end) });
  }
  const words = new Set(symbol.text.match(/[A-Za-z_$][\w$]*/g) ?? []);
  for (const imp of file.imports)
    if (imp.names.some((n) => words.has(n))) out.push({ start: imp.startLine, end: imp.endLine });
  // The module-level names it uses: their assignments, and the short helpers of the same module.
  for (const name of file.moduleNames)
    if (words.has(name.name) && !(name.startLine >= symbol.outerStart && name.endLine <= symbol.endLine))
      out.push({ start: name.startLine, end: Math.min(name.endLine, name.startLine + MODULE_NAME_LINES - 1) });
  for (const helper of file.symbols) {
    if (helper.kind === "method" || helper === symbol || !words.has(helper.name)) continue;
    if (helper.outerStart <= symbol.outerStart && symbol.endLine <= helper.endLine) continue;
    out.push(
      helper.kind === "function" && helper.endLine - helper.outerStart < HELPER_LINES
        ? { start: helper.outerStart, end: helper.endLine }
        : { start: helper.outerStart, end: helper.headerEnd },
    );
  }
  return out;
}

/** A weakly evidenced symbol: its signature, under its class's line when it is a method. */
export function signatureRanges(file: SourceFile, symbol: CodeSymbol): LineRange[] {
  const owner =
    symbol.kind === "method"
      ? file.symbols.find((s) => s.kind === "class" && s.name === symbol.name.split(".").slice(0, -1).join("."))
      : undefined;
  return [
    ...(owner ? [{ start: owner.startLine, end: owner.startLine }] : []),
    { start: symbol.startLine, end: symbol.headerEnd },
  ];
}

export function isSmall(file: SourceFile): boolean {
  return file.lines.length <= SMALL_FILE_LINES && file.text.length <= SMALL_FILE_CHARS;
}

/** A short file whole; a long one as the signatures of its top-level symbols. */
export function wholeOrOutline(file: SourceFile): LineRange[] {
  if (isSmall(file)) return [{ start: 1, end: file.lines.length }];
  return file.symbols.filter((s) => s.kind !== "method").map((s) => ({ start: s.outerStart, end: s.headerEnd }));
}

export function outline(file: SourceFile, symbol: CodeSymbol): LineRange[] {
  const members =
    symbol.kind === "class"
      ? file.symbols.filter(
          (s) => s.name.startsWith(`${symbol.name}.`) && !s.name.slice(symbol.name.length + 1).includes("."),
        )
      : [];
  return [
    { start: symbol.outerStart, end: symbol.headerEnd },
    ...members.map((m) => ({ start: m.outerStart, end: m.headerEnd })),
  ];
}

/** What adding ranges to a file's shown ranges adds to the code as the model sees it: lines, markers, the file's heading. */
export function costOf(file: SourceFile, current: LineRange[], added: LineRange[]): number {
  const before = current.length ? view(file, current).length + 2 : 0;
  return view(file, [...current, ...added]).length + 2 - before;
}

export function view(file: SourceFile, ranges: LineRange[]): string {
  const lastLine = file.lines.at(-1) === "" ? file.lines.length - 1 : file.lines.length;
  const covered = ranges.some((r) => r.start <= 1 && r.end >= lastLine);
  if (covered) return `--- ${file.path}\n${numberedWhole(file.lines)}`;
  return `--- ${file.path} (${lastLine} lines; the parts shown keep their line numbers)\n${renderRanges(file.lines, ranges)}`;
}
