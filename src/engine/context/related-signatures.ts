// The callers and callees of the symbols shown, as one-line signatures with where they
// are and whose caller or callee each is (a helper's caller is not the focal function's):
// what the model needs to know they exist without their bodies. A call counts only when it
// resolves: a bare `f(...)` to the same module's top-level `f` or to the `f` an
// import brings in, `self.f(...)`/`this.f(...)` to the enclosing class's method,
// `mod.f(...)` through an imported module, `Class.f(...)` to that class's method. A method
// name alone (`get`, `pop`, `__init__`) never links two symbols.
import type { ImportLines } from "./import-lines.ts";
import { shortName, type CodeSymbol } from "./symbols.ts";

export type GraphFile = { path: string; lines: string[]; symbols: CodeSymbol[]; imports: ImportLines[] };
type Shown = { path: string; symbol: CodeSymbol };
type Target = { file: GraphFile; symbol: CodeSymbol };

export function relatedSignatures(shown: Shown[], files: GraphFile[], max: number): string {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const shownKeys = new Set(shown.map((s) => `${s.path}#${s.symbol.name}`));
  const out: string[] = [];
  const taken = new Set<string>();
  const take = ({ file, symbol }: Target, role: string) => {
    const key = `${file.path}#${symbol.name}`;
    if (shownKeys.has(key) || taken.has(key) || out.length >= max) return;
    // A class shown whole already holds its methods.
    if (
      shown.some(
        (s) => s.path === file.path && s.symbol.kind === "class" && symbol.name.startsWith(`${s.symbol.name}.`),
      )
    )
      return;
    taken.add(key);
    out.push(`${role} ${file.path}:${symbol.outerStart}: ${signature(file, symbol)}`);
  };
  for (const s of shown) {
    const file = byPath.get(s.path);
    if (!file) continue;
    const short = shortName(s.symbol);
    for (const other of files)
      for (const symbol of other.symbols) {
        if (symbol.kind === "class" || !symbol.text.includes(short)) continue;
        if (resolvedCalls(other, symbol, byPath).some((t) => t.file === file && t.symbol === s.symbol))
          take({ file: other, symbol }, `caller of ${short}`);
      }
  }
  for (const s of shown) {
    const file = byPath.get(s.path);
    if (file)
      for (const target of resolvedCalls(file, s.symbol, byPath)) take(target, `callee of ${shortName(s.symbol)}`);
  }
  return out.join("\n");
}

/** The symbols a symbol's calls resolve to (see the header); unresolved calls are left out. */
export function resolvedCalls(file: GraphFile, symbol: CodeSymbol, byPath: Map<string, GraphFile>): Target[] {
  const out: Target[] = [];
  const owner = symbol.kind === "method" ? symbol.name.split(".").slice(0, -1).join(".") : undefined;
  const body = symbol.text.slice(symbol.text.indexOf("\n") + 1 || symbol.text.length);
  for (const m of body.matchAll(/(?<![\w$.])(?:([A-Za-z_$][\w$]*)\s*\.\s*)?([A-Za-z_$][\w$]*)\s*\(/g)) {
    const qualifier = m[1];
    const name = m[2] as string;
    let target: Target | undefined;
    if (qualifier === undefined) target = topLevel(file, name) ?? imported(file, name, byPath);
    else if (/^(self|this|cls)$/.test(qualifier)) target = owner ? member(file, owner, name) : undefined;
    else if (file.symbols.some((s) => s.kind === "class" && s.name === qualifier))
      target = member(file, qualifier, name);
    else {
      const module = moduleBinding(file, qualifier, byPath);
      if (module) target = topLevel(module, name);
    }
    if (target && target.symbol !== symbol && !out.some((t) => t.symbol === target.symbol)) out.push(target);
  }
  return out;
}

function topLevel(file: GraphFile, name: string): Target | undefined {
  const symbol = file.symbols.find((s) => s.kind !== "method" && s.name === name);
  return symbol ? { file, symbol } : undefined;
}

function member(file: GraphFile, owner: string, name: string): Target | undefined {
  const symbol = file.symbols.find((s) => s.kind === "method" && s.name === `${owner}.${name}`);
  return symbol ? { file, symbol } : undefined;
}

/** `f` brought in by `from m import f` / `import { f } from "./m"`, found in m. */
function imported(file: GraphFile, name: string, byPath: Map<string, GraphFile>): Target | undefined {
  for (const imp of file.imports) {
    if (!imp.module || !imp.names.includes(name)) continue;
    const module = moduleFile(file.path, imp.module, byPath);
    const target = module ? topLevel(module, name) : undefined;
    if (target) return target;
  }
  return undefined;
}

/** The file a name bound to a whole module stands for: `import pkg.mod as m`, `from pkg import mod`, `import * as m from "./mod"`. */
function moduleBinding(file: GraphFile, name: string, byPath: Map<string, GraphFile>): GraphFile | undefined {
  for (const imp of file.imports) {
    if (!imp.module || !imp.names.includes(name)) continue;
    // `from pkg import mod` names the submodule pkg/mod.py; `import pkg.mod as m` names the module itself.
    const sub = moduleFile(file.path, `${imp.module}${imp.module.endsWith(".") ? "" : "."}${name}`, byPath);
    if (sub) return sub;
    const direct = moduleFile(file.path, imp.module, byPath);
    if (direct && !direct.symbols.some((s) => s.name === name)) return direct;
  }
  return undefined;
}

/** The repository file a module specifier names, seen from `from`. */
export function moduleFile(from: string, spec: string, byPath: Map<string, GraphFile>): GraphFile | undefined {
  const dir = from.split("/").slice(0, -1);
  if (from.endsWith(".py")) {
    const dots = /^\.*/.exec(spec)?.[0].length ?? 0;
    const parts = spec.slice(dots).split(".").filter(Boolean);
    const candidates: string[] = [];
    if (dots > 0) {
      const base = dir.slice(0, dir.length - (dots - 1));
      candidates.push([...base, ...parts].join("/"));
    } else {
      const stem = parts.join("/");
      for (const path of byPath.keys())
        if (path === `${stem}.py` || path.endsWith(`/${stem}.py`) || path.endsWith(`${stem}/__init__.py`))
          candidates.push(path.replace(/(\/__init__)?\.py$/, ""));
    }
    for (const c of candidates) {
      const hit = byPath.get(`${c}.py`) ?? byPath.get(`${c}/__init__.py`);
      if (hit) return hit;
    }
    return undefined;
  }
  if (!spec.startsWith(".")) return undefined;
  const parts = [...dir];
  for (const piece of spec.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== "." && piece !== "") parts.push(piece);
  }
  const stem = parts.join("/");
  const bare = stem.replace(/\.[cm]?js$/, "");
  for (const ext of ["", ".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx", "/index.ts", "/index.js"]) {
    const hit = byPath.get(`${stem}${ext}`) ?? byPath.get(`${bare}${ext}`);
    if (hit) return hit;
  }
  return undefined;
}

function signature(file: GraphFile, symbol: CodeSymbol): string {
  const text = file.lines
    .slice(symbol.startLine - 1, symbol.headerEnd)
    .map((l) => l.trim())
    .join(" ");
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
