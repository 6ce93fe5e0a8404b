// What a failing test (or the code in an issue) reaches, statically: the repository modules
// it imports and, through their imports, the modules those import (`require('../')` →
// package.json's main → `require('./parse')`; `from pkg import f` → pkg/__init__.py → its
// submodules); then the functions it calls in them and, through their bodies, what those
// call (by name: `f(…)`, `new C(…)`, `C().m(…)`, `self.m(…)`), a few levels deep. The code at
// fault is among these even when no stack frame names it (an assertion failing in the test).
import { dirname, join, normalize } from "node:path";
import type { ImportLines } from "./import-lines.ts";
import { shortName, type CodeSymbol } from "./symbols.ts";

export type ReachFile = { path: string; text: string; symbols: CodeSymbol[]; imports: ImportLines[] };
/** A test file or an issue's code: its path (for relative imports), text and imports. */
export type ReachEntry = {
  path: string;
  text: string;
  imports: Array<Pick<ImportLines, "names" | "module">>;
  /** Repository modules it uses without an import the parser sees (an issue's code using the package). */
  modules?: string[];
};
/** The package's own name and entry (package.json's `name` and `main`), for `require('<name>')` and `require('../')`. */
export type PackageInfo = { name?: string | undefined; main?: string | undefined };
export type ReachedSymbol = { path: string; symbol: CodeSymbol; depth: number };
export type Reach = { modules: Set<string>; symbols: ReachedSymbol[] };

const MAX_MODULE_DEPTH = 4;
const MAX_CALL_DEPTH = 4;
/** A called name matching more symbols than this in the reached modules says nothing about which. */
const MAX_FAN_OUT = 6;
const JS_EXTENSIONS = [".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts"];
/** Where a JS package's code lives when its main points at build output not in the repository. */
const JS_ENTRIES = ["index", "src/index", "lib/index"];

/** The modules and symbols the entries reach; empty when none of their imports resolves into the repository. */
export function reach(entries: readonly ReachEntry[], files: ReadonlyMap<string, ReachFile>, pkg: PackageInfo): Reach {
  const modules = new Map<string, number>();
  const seeds = new Map<string, ReachedSymbol>();
  const called = new Set<string>();
  const addSeed = (path: string, symbol: CodeSymbol) => {
    const key = `${path}#${symbol.name}#${symbol.startLine}`;
    if (!seeds.has(key)) seeds.set(key, { path, symbol, depth: 0 });
  };
  const queue: Array<{ path: string; depth: number }> = [];
  for (const entry of entries) {
    for (const name of callNames(entry.text)) called.add(name);
    for (const target of entry.modules ?? []) {
      for (const s of files.get(target)?.symbols ?? []) if (isDefaultExport(s)) addSeed(target, s);
      queue.push({ path: target, depth: 1 });
    }
    for (const imp of entry.imports) {
      for (const target of resolveImport(imp, entry.path, files, pkg)) {
        // What the entry imports by name is called; a module imported whole is called through its exports.
        for (const s of files.get(target)?.symbols ?? [])
          if (imp.names.includes(shortName(s)) || isDefaultExport(s)) addSeed(target, s);
        queue.push({ path: target, depth: 1 });
      }
    }
  }
  while (queue.length > 0) {
    const { path, depth } = queue.shift() as { path: string; depth: number };
    if (modules.has(path)) continue;
    modules.set(path, depth);
    const file = files.get(path);
    if (!file || depth >= MAX_MODULE_DEPTH) continue;
    for (const imp of file.imports)
      for (const target of resolveImport(imp, path, files, pkg)) {
        // `var parse = require('./parse')` and the entry calls `parse`: that module's export is called.
        if (imp.names.some((n) => called.has(n)))
          for (const s of files.get(target)?.symbols ?? []) if (isDefaultExport(s)) addSeed(target, s);
        queue.push({ path: target, depth: depth + 1 });
      }
  }
  const inReach = [...modules.keys()].flatMap((path) =>
    (files.get(path)?.symbols ?? []).map((symbol) => ({ path, symbol })),
  );
  // What the entry calls by name: functions and classes, and methods (`parse(sql)[0].get_real_name()`) when few share the name.
  for (const { path, symbol } of inReach)
    if (called.has(shortName(symbol)) && symbol.kind !== "method") addSeed(path, symbol);
  for (const name of called) {
    const methods = inReach.filter((r) => r.symbol.kind === "method" && shortName(r.symbol) === name);
    if (methods.length <= MAX_FAN_OUT) for (const m of methods) addSeed(m.path, m.symbol);
  }

  const reached = new Map<string, ReachedSymbol>();
  const frontier = [...seeds.values()];
  while (frontier.length > 0) {
    const current = frontier.shift() as ReachedSymbol;
    const key = `${current.path}#${current.symbol.name}#${current.symbol.startLine}`;
    if (reached.has(key)) continue;
    reached.set(key, current);
    if (current.depth >= MAX_CALL_DEPTH) continue;
    for (const next of callees(current, inReach)) frontier.push({ ...next, depth: current.depth + 1 });
  }
  return { modules: new Set(modules.keys()), symbols: [...reached.values()] };
}

/** The module specifiers an issue's code imports (`require('qs')`, `import x from 'm'`, `from m import f`, `import m`). */
export function issueImports(text: string): Array<Pick<ImportLines, "names" | "module">> {
  const out: Array<Pick<ImportLines, "names" | "module">> = [];
  for (const m of text.matchAll(/(?:(?:var|let|const)\s+([\w$]+)\s*=\s*)?require\(\s*["'`]([^"'`\s]+)["'`]\s*\)/g))
    out.push({ module: m[2] as string, names: m[1] ? [m[1]] : [] });
  for (const m of text.matchAll(/import\s+(?:([\w${},\s*]+)\s+from\s+)?["'`]([^"'`\s]+)["'`]/g))
    out.push({ module: m[2] as string, names: (m[1] ?? "").match(/[\w$]+/g) ?? [] });
  for (const m of text.matchAll(/^[>.\s]*from\s+([\w.]+)\s+import\s+\(?([\w,\s]+)/gm))
    out.push({ module: m[1] as string, names: (m[2] ?? "").match(/\w+/g) ?? [] });
  for (const m of text.matchAll(/^[>.\s]*import\s+([\w.]+)(?:\s+as\s+(\w+))?\s*$/gm))
    out.push({ module: m[1] as string, names: [m[2] ?? (m[1] as string).split(".")[0] ?? ""] });
  return out;
}

/** The package's entry modules: what `import <package>` names when the issue's code imports nothing. */
export function packageEntries(files: ReadonlyMap<string, ReachFile>, pkg: PackageInfo): string[] {
  if (pkg.name !== undefined || pkg.main !== undefined) {
    const js = jsPackageMain(files, pkg);
    return js ? [js] : [];
  }
  const paths = [...files.keys()];
  return paths.filter((p) => /^(src\/)?[A-Za-z_]\w*\/__init__\.py$/.test(p) || /^[A-Za-z_]\w*\.py$/.test(p));
}

function isDefaultExport(s: CodeSymbol): boolean {
  return /^(module\.)?exports$/.test(s.name) || s.name === "default";
}

/** Names called in a text: `f(`, `.m(`, `new C(`. */
function callNames(text: string): Set<string> {
  return new Set([...text.matchAll(/(?<![\w$])(?:new\s+)?([A-Za-z_$][\w$]*)\s*\(/g)].map((m) => m[1] as string));
}

/** The symbols a symbol calls among those in reach: same-file first, methods by their receiver's class when named. */
function callees(
  from: ReachedSymbol,
  inReach: ReadonlyArray<{ path: string; symbol: CodeSymbol }>,
): Array<{ path: string; symbol: CodeSymbol }> {
  const text = from.symbol.text;
  const words = new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const ownClass = from.symbol.kind === "method" ? from.symbol.name.split(".").slice(0, -1).join(".") : undefined;
  const out: Array<{ path: string; symbol: CodeSymbol }> = [];
  // A class reached is reached with its methods (its constructor runs; its dunders are called by the language).
  if (from.symbol.kind === "class")
    out.push(...inReach.filter((r) => r.path === from.path && r.symbol.name.startsWith(`${from.symbol.name}.`)));
  for (const name of callNames(text)) {
    if (name === shortName(from.symbol)) continue;
    const matches = inReach.filter((r) => shortName(r.symbol) === name && r.symbol !== from.symbol);
    if (matches.length === 0) continue;
    const owned = matches.filter((r) => {
      const cls = r.symbol.kind === "method" ? r.symbol.name.split(".").slice(0, -1).join(".") : undefined;
      return cls !== undefined && (cls === ownClass || words.has(cls.split(".").at(-1) ?? cls));
    });
    const sameFile = matches.filter((r) => r.path === from.path);
    const chosen = owned.length ? owned : sameFile.length ? sameFile : matches;
    if (chosen.length <= MAX_FAN_OUT) out.push(...chosen);
  }
  return out;
}

/** The repository files an import names (a Python `from m import a` may name submodule m/a too). */
function resolveImport(
  imp: Pick<ImportLines, "names" | "module">,
  from: string,
  files: ReadonlyMap<string, ReachFile>,
  pkg: PackageInfo,
): string[] {
  const spec = imp.module;
  if (!spec) return [];
  const python = from.endsWith(".py") || (!from && /^\.*[\w.]+$/.test(spec) && !spec.includes("/"));
  if (python && !spec.startsWith("/")) {
    const out = pythonModules(spec, from, files);
    for (const name of imp.names) out.push(...pythonModules(`${spec.replace(/\.$/, "")}.${name}`, from, files));
    if (out.length || from.endsWith(".py")) return [...new Set(out)];
  }
  const resolved = jsModule(spec, from, files, pkg);
  return resolved ? [resolved] : [];
}

function pythonModules(spec: string, from: string, files: ReadonlyMap<string, ReachFile>): string[] {
  const dots = /^\.*/.exec(spec)?.[0].length ?? 0;
  const rest = spec.slice(dots).split(".").filter(Boolean).join("/");
  let bases: string[];
  if (dots > 0) {
    let dir = dirname(from);
    for (let i = 1; i < dots; i++) dir = dirname(dir);
    bases = [dir === "." ? "" : dir];
  } else bases = ["", "src"];
  const out: string[] = [];
  for (const base of bases) {
    const stem = [base, rest].filter(Boolean).join("/");
    for (const candidate of [`${stem}.py`, `${stem}/__init__.py`])
      if (stem && files.has(candidate)) out.push(candidate);
  }
  return out;
}

function jsModule(
  spec: string,
  from: string,
  files: ReadonlyMap<string, ReachFile>,
  pkg: PackageInfo,
): string | undefined {
  if (spec.startsWith(".")) {
    const path = normalize(join(dirname(from || "."), spec)).replace(/\/$/, "");
    if (path.startsWith("..")) return undefined;
    return (
      jsFile(path === "." ? "" : path, files) ?? (path === "." || path === "" ? jsPackageMain(files, pkg) : undefined)
    );
  }
  if (pkg.name && (spec === pkg.name || spec.startsWith(`${pkg.name}/`))) {
    const sub = spec.slice(pkg.name.length + 1);
    return sub ? jsFile(sub, files) : jsPackageMain(files, pkg);
  }
  return undefined;
}

function jsFile(path: string, files: ReadonlyMap<string, ReachFile>): string | undefined {
  const stem = path.replace(/\.[cm]?[jt]sx?$/, "");
  const candidates = [
    path,
    ...JS_EXTENSIONS.map((e) => `${stem}${e}`),
    ...JS_EXTENSIONS.map((e) => (path ? `${path}/index${e}` : `index${e}`)),
  ];
  return candidates.find((c) => c && files.has(c));
}

function jsPackageMain(files: ReadonlyMap<string, ReachFile>, pkg: PackageInfo): string | undefined {
  if (pkg.main) {
    const main = normalize(pkg.main).replace(/^\.\//, "");
    const direct = jsFile(main, files);
    if (direct) return direct;
    // `dist/index.cjs` is build output: its source is src/index.ts.
    const fromBuild = jsFile(main.replace(/^(dist|build|out|lib)\//, "src/"), files);
    if (fromBuild) return fromBuild;
  }
  for (const entry of JS_ENTRIES) {
    const found = jsFile(entry, files);
    if (found && !found.endsWith(".py")) return found;
  }
  return undefined;
}
