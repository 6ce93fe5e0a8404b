// The code the failing tests and the issue's code reach (context/test-reach.ts), ranked by
// how well each reached function matches the problem and its failures (BM25): the best few
// are shown whole. A function no test reaches, found only by a shared word, is noise beside them.
import { z } from "zod";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import type { ContextOptions, Focus, SourceFile } from "./context-types.ts";
import { splitIdentifiers } from "./retrieval-index.ts";
import { shortName, type CodeSymbol } from "./symbols.ts";
import {
  issueImports,
  packageEntries,
  reach,
  type PackageInfo,
  type ReachedSymbol,
  type ReachEntry,
} from "./test-reach.ts";

export type ReachedFocus = {
  /** The best-matching reached functions, most relevant first, to be shown whole. */
  focus: Focus[];
  /** Every reached symbol (`path#name#line`) and module. */
  symbols: Set<string>;
  modules: Set<string>;
};

/** A class this long is ranked by its methods. */
const CLASS_LINES = 30;
/** A function the test calls directly that is shorter than this is an entry, shown beside the ranked ones. */
const THIN_LINES = 15;
/** A function the issue's own code reaches counts this much more than one only the test reaches. */
const PREFERRED_WEIGHT = 1.5;
/** A word of the problem found in a function's own name counts this many times over. */
const NAME_WEIGHT = 2;
/** A word the problem writes as code (a `span`, an indented block, an identifier) counts this many times a prose word. */
const CODE_WEIGHT = 2;
/** A word only the failures' output has (not the issue) counts this much, once. */
const OUTPUT_WEIGHT = 0.5;
/** Words that say nothing about which code: English glue, and what any function does in general. */
const GENERIC = new Set(
  "the and for that with this not are but was were has have had its into from when then than also only does should would could get set read write make init new".split(
    " ",
  ),
);

const packageJson = z.object({ name: z.string().optional(), main: z.string().optional() }).passthrough();

export async function reachedFocus(
  workspace: string,
  files: ReadonlyMap<string, SourceFile>,
  options: Pick<ContextOptions, "mentioned" | "isTestFile" | "issue" | "query" | "about">,
  count: number,
): Promise<ReachedFocus> {
  const pkg = await packageInfo(workspace);
  const entries: ReachEntry[] = [];
  for (const path of options.mentioned) {
    const file = files.get(path);
    if (file && options.isTestFile(path)) entries.push({ path, text: file.text, imports: file.imports });
  }
  let byIssue = new Set<string>();
  if (options.issue) {
    const imports = issueImports(options.issue);
    let entry: ReachEntry = { path: "", text: options.issue, imports };
    // An issue whose code imports nothing of the repository uses the package: its entry modules.
    if (reach([entry], files, pkg).modules.size === 0) entry = { ...entry, modules: packageEntries(files, pkg) };
    entries.push(entry);
    byIssue = new Set(reach([entry], files, pkg).symbols.map((r) => key(r.path, r.symbol.name, r.symbol.startLine)));
  }
  const found = reach(entries, files, pkg);
  const symbols = new Set(found.symbols.map((r) => key(r.path, r.symbol.name, r.symbol.startLine)));
  if (found.symbols.length === 0) return { focus: [], symbols, modules: found.modules };
  const ranked = rank(
    found.symbols.filter(
      // A class is reached with its methods: those are ranked, not a class longer than a few lines.
      (r) => !(r.symbol.kind === "class" && r.symbol.endLine - r.symbol.startLine >= CLASS_LINES),
    ),
    options.query,
    options.about ?? options.issue,
    // What the issue's own code calls is what the report is about; a test may call more (a round trip, a setup).
    entries.length > 1 ? byIssue : new Set(),
  );
  // A short function the test calls directly (an API's thin entry) comes along without taking a place.
  const thin = (r: ReachedSymbol) => r.depth === 0 && r.symbol.endLine - r.symbol.outerStart < THIN_LINES;
  const chosen = [
    ...ranked.filter(({ r }) => !thin(r)).slice(0, count),
    ...ranked.filter(({ r }) => thin(r)).slice(0, 2),
  ];
  const focus: Focus[] = chosen.map(({ r }) => ({ path: r.path, symbol: r.symbol, reason: "reached" }));
  return { focus, symbols, modules: found.modules };
}

function key(path: string, name: string, line: number): string {
  return `${path}#${name}#${line}`;
}

async function packageInfo(workspace: string): Promise<PackageInfo> {
  try {
    const parsed = packageJson.safeParse(JSON.parse(await readWorktreeText(workspace, "package.json")));
    return parsed.success ? { name: parsed.data.name, main: parsed.data.main } : {};
  } catch {
    // No package.json (a Python project), or not JSON: no JS package to resolve.
    return {};
  }
}

/** A function's own name in words; a module's anonymous export (`module.exports = function …`) goes by its file's name. */
function nameWords(symbol: CodeSymbol, path: string): string[] {
  const own =
    symbol.name === "module.exports" ? (path.split("/").at(-1) ?? "").replace(/\.[^.]*$/, "") : shortName(symbol);
  return (
    splitIdentifiers(own)
      .toLowerCase()
      .match(/[a-z0-9]{3,}/g) ?? []
  ).filter((w) => !GENERIC.has(w));
}

/**
 * Reached functions by how much of the problem they are about: each problem word the function
 * uses, weighted by its rarity among the reached functions (idf), by a saturating count of its
 * uses, twice when the problem writes it as code, and more when it is in the function's own name.
 * No length normalisation: the function at fault is often the long one.
 */
function rank(
  reached: readonly ReachedSymbol[],
  query: string,
  about: string | undefined,
  preferred: ReadonlySet<string>,
): Array<{ r: ReachedSymbol; score: number }> {
  // A word the reporter repeats is central to the report: 1 + ln(its count). Beside an issue, the rest of the
  // query (the failures' output: the values a diff repeats, `DEFAULT CAST` eight times) is weaker evidence:
  // its words count OUTPUT_WEIGHT each, however often they are repeated.
  const own = about ?? query;
  const weights = new Map<string, number>();
  for (const w of wordsOf(own)) weights.set(w, (weights.get(w) ?? 0) + 1);
  for (const [w, n] of weights) weights.set(w, 1 + Math.log(n));
  if (about !== undefined) for (const w of new Set(wordsOf(query))) if (!weights.has(w)) weights.set(w, OUTPUT_WEIGHT);
  const code = [
    ...[...query.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? ""),
    ...query.split("\n").filter((l) => /^( {4}|\t|>>> )/.test(l)),
  ].join("\n");
  for (const w of new Set(wordsOf(code))) weights.set(w, CODE_WEIGHT * (weights.get(w) ?? 1));
  const docs = reached.map((r) => {
    const counts = new Map<string, number>();
    for (const w of wordsOf(r.symbol.text)) counts.set(w, (counts.get(w) ?? 0) + 1);
    return { r, counts, name: new Set(nameWords(r.symbol, r.path)) };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.counts.keys()) if (weights.has(w)) df.set(w, (df.get(w) ?? 0) + 1);
  return docs
    .map((d) => {
      let score = 0;
      for (const [w, weight] of weights) {
        const tf = d.counts.get(w) ?? 0;
        if (tf === 0) continue;
        const idf = Math.log(1 + docs.length / (df.get(w) ?? 1));
        score += idf * weight * (tf / (tf + 1.5)) * (d.name.has(w) ? 1 + NAME_WEIGHT : 1);
      }
      const boost = preferred.has(key(d.r.path, d.r.symbol.name, d.r.symbol.startLine)) ? PREFERRED_WEIGHT : 1;
      return { r: d.r, score: score * boost };
    })
    .filter((d) => d.score > 0)
    .sort((a, b) => b.score - a.score);
}

function wordsOf(text: string): string[] {
  return (
    splitIdentifiers(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]{3,}/gu) ?? []
  ).filter((w) => !GENERIC.has(w));
}
