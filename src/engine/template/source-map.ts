// V8 coverage of TRANSFORMED code (jest's ts-jest or babel output, vitest's esbuild output in
// its module wrapper) mapped back to the original files' lines through the script's inline
// source map, which resources/node/autogen-coverage-scripts.cjs recorded in the test process.
// Everything here comes from the repository's run: a record or a map that does not parse, is
// too large or does not fit its script is ignored (the lines then come from the text on disk),
// and a map's `sources` name a file only when it is an editable file of the worktree (the
// caller's filter: no path outside it, no link), so nothing else is ever read through a map.
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { innermostRanges, type CoverageRange } from "./innermost-range.ts";

/** A map larger than this (characters of its data URL, of its decoded JSON) is ignored. */
export const MAX_MAP_CHARS = 16 * 1024 * 1024;

/** A script of more lines than this is not mapped. */
export const MAX_RECORD_LINES = 1_000_000;

export const scriptRecordSchema = z.object({
  filename: z.string().max(4096),
  length: z.int().nonnegative(),
  lineOffset: z.int(),
  columnOffset: z.int(),
  lines: z.array(z.int().nonnegative()).max(MAX_RECORD_LINES),
  map: z.string().max(MAX_MAP_CHARS),
});
export type ScriptRecord = z.infer<typeof scriptRecordSchema>;

const mapSchema = z.object({
  version: z.literal(3),
  sources: z.array(z.string().max(4096).nullable()).max(10_000),
  sourceRoot: z.string().max(4096).optional().nullable(),
  mappings: z.string().max(MAX_MAP_CHARS),
});

type Range = CoverageRange;

/** One mapping of the generated text: its offset in the script V8 ran, and the original file (index) and position. */
type Segment = { offset: number; source: number; line: number; column: number };

/** A record's map and its decoded segments. */
export type DecodedMap = { map: z.infer<typeof mapSchema>; segments: Segment[] };

/** The map of a data URL (`data:application/json[;charset=…][;base64],…`); undefined for any other URL or a malformed map. */
export function parseInlineMap(url: string): z.infer<typeof mapSchema> | undefined {
  const match = /^data:application\/json((?:;[\w-]+=[\w-]+)*)(;base64)?,/i.exec(url);
  if (!match) return undefined;
  const payload = url.slice(match[0].length);
  try {
    const text = match[2] ? Buffer.from(payload, "base64").toString("utf8") : decodeURIComponent(payload);
    if (text.length > MAX_MAP_CHARS) return undefined;
    const parsed = mapSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** The mappings' segments that name an original position, each at its offset in the script; undefined when malformed. */
export function decodeSegments(mappings: string, record: ScriptRecord): Segment[] | undefined {
  const starts: number[] = [];
  let at = 0;
  for (const length of record.lines) {
    starts.push(at);
    at += length + 1;
  }
  const segments: Segment[] = [];
  const state = [0, 0, 0, 0];
  let generatedLine = 0;
  for (const group of mappings.split(";")) {
    let column = 0;
    if (group.length > 0)
      for (const text of group.split(",")) {
        const fields = decodeVlq(text);
        if (!fields || fields.length === 0) return undefined;
        column += fields[0] ?? 0;
        if (fields.length < 4) continue;
        for (let i = 0; i < 3; i++) state[i] = (state[i] ?? 0) + (fields[i + 1] ?? 0);
        // V8 reports the vm's line and column offsets in positions, and the map is written for them.
        const line = generatedLine - record.lineOffset;
        const start = starts[line];
        const inLine = column - (line === 0 ? record.columnOffset : 0);
        if (start === undefined || inLine < 0 || inLine > (record.lines[line] ?? 0)) continue;
        const [source = 0, originalLine = 0, originalColumn = 0] = state;
        if (source < 0 || originalLine < 0) return undefined;
        segments.push({ offset: start + inLine, source, line: originalLine + 1, column: originalColumn });
      }
    generatedLine += 1;
  }
  return segments;
}

function decodeVlq(text: string): number[] | undefined {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = DIGIT.get(char);
    if (digit === undefined || shift > 30) return undefined;
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return shift === 0 ? values : undefined;
}

/** The absolute path a map's source names (a relative path against the script's folder and the map's sourceRoot, a file: URL, an absolute path); undefined for any other URL. */
export function sourcePath(
  scriptPath: string,
  source: string,
  sourceRoot: string | null | undefined,
): string | undefined {
  const joined =
    sourceRoot && !isAbsolute(source) && !source.includes(":") ? `${sourceRoot.replace(/\/?$/, "/")}${source}` : source;
  try {
    if (joined.startsWith("file:")) return fileURLToPath(joined);
  } catch {
    return undefined;
  }
  if (/^[a-z][\w+.-]*:/i.test(joined)) return undefined;
  return resolve(dirname(scriptPath), joined);
}

/**
 * Each original line's count, per original file (by index into the map's sources): that of the
 * innermost V8 range holding the line's first mapped code (its smallest original column; of the
 * places that column's code went, the innermost, so a function's line is its own count, not its
 * export's).
 */
export function mappedLineCounts(
  segments: readonly Segment[],
  ranges: readonly Range[],
): Map<number, Map<number, number>> {
  // One sweep for all the mappings (a forged map and coverage of millions of each cost a sort, not hours).
  const innermost = innermostRanges(
    segments.map((segment) => segment.offset),
    ranges,
  );
  // Per source and line: the smallest original column, and the innermost range of its code.
  const first = new Map<string, { column: number; range: Range | undefined; source: number; line: number }>();
  for (const [index, segment] of segments.entries()) {
    const key = `${String(segment.source)}:${String(segment.line)}`;
    const seen = first.get(key);
    if (seen && seen.column < segment.column) continue;
    const range = innermost[index];
    if (
      !seen ||
      seen.column > segment.column ||
      (range && (!seen.range || range.endOffset - range.startOffset < seen.range.endOffset - seen.range.startOffset))
    )
      first.set(key, { column: segment.column, range, source: segment.source, line: segment.line });
  }
  const counts = new Map<number, Map<number, number>>();
  for (const { range, source, line } of first.values()) {
    if (!range) continue;
    const byLine = counts.get(source) ?? new Map<number, number>();
    byLine.set(line, range.count);
    counts.set(source, byLine);
  }
  return counts;
}
