// The callers and callees of the symbols shown, as one-line signatures with where they
// are: what the model needs to know they exist without their bodies.
import { shortName, type CodeSymbol } from "./symbols.ts";

type File = { path: string; lines: string[]; symbols: CodeSymbol[] };
type Shown = { path: string; symbol: CodeSymbol };

export function relatedSignatures(shown: Shown[], files: File[], max: number): string {
  const shownKeys = new Set(shown.map((s) => `${s.path}#${s.symbol.name}`));
  const all = files.flatMap((f) => f.symbols.map((symbol) => ({ file: f, symbol })));
  const out: string[] = [];
  const taken = new Set<string>();
  const take = (file: File, symbol: CodeSymbol, role: string) => {
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
    const call = new RegExp(`(?<![\\w$])${escape(shortName(s.symbol))}\\s*\\(`);
    for (const { file, symbol } of all)
      if (symbol.kind !== "class" && call.test(symbol.text)) take(file, symbol, "caller");
  }
  const called = new Set(
    shown.flatMap((s) => [...s.symbol.text.matchAll(/([A-Za-z_$][\w$]*)\s*\(/g)].map((m) => m[1] as string)),
  );
  for (const { file, symbol } of all)
    if (symbol.kind !== "class" && called.has(shortName(symbol)) && shortName(symbol).length > 2)
      take(file, symbol, "callee");
  return out.join("\n");
}

function signature(file: File, symbol: CodeSymbol): string {
  const text = file.lines
    .slice(symbol.startLine - 1, symbol.headerEnd)
    .map((l) => l.trim())
    .join(" ");
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
