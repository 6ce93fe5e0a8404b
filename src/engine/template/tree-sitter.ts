// Maintained tree-sitter grammars as WebAssembly (VS Code's build): real syntax trees
// with no native addon. The runtime and each grammar are loaded once per process.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as TreeSitter from "@vscode/tree-sitter-wasm";

const require = createRequire(import.meta.url);

export type SyntaxNode = TreeSitter.Node;
export type SyntaxTree = TreeSitter.Tree;
export type Grammar = "python" | "javascript" | "typescript" | "tsx";

const parsers = new Map<Grammar, Promise<TreeSitter.Parser>>();
let runtime: Promise<typeof TreeSitter> | undefined;

function loadRuntime(): Promise<typeof TreeSitter> {
  runtime ??= (async () => {
    const ts = require("@vscode/tree-sitter-wasm") as typeof TreeSitter;
    const dir = dirname(require.resolve("@vscode/tree-sitter-wasm"));
    await ts.Parser.init({ locateFile: (file: string) => join(dir, file) });
    return ts;
  })();
  return runtime;
}

export function parserFor(grammar: Grammar): Promise<TreeSitter.Parser> {
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = (async () => {
      const ts = await loadRuntime();
      const dir = dirname(require.resolve("@vscode/tree-sitter-wasm"));
      const p = new ts.Parser();
      p.setLanguage(await ts.Language.load(join(dir, `tree-sitter-${grammar}.wasm`)));
      return p;
    })();
    parsers.set(grammar, parser);
  }
  return parser;
}

export async function parseSource(grammar: Grammar, source: string): Promise<SyntaxTree> {
  const tree = (await parserFor(grammar)).parse(source);
  if (!tree) throw new Error(`tree-sitter returned no tree for ${grammar}`);
  return tree;
}

export function parsePython(source: string): Promise<SyntaxTree> {
  return parseSource("python", source);
}

export function grammarForFile(path: string): Grammar | undefined {
  if (path.endsWith(".py")) return "python";
  if (/\.[cm]?jsx?$/.test(path)) return "javascript";
  if (path.endsWith(".tsx")) return "tsx";
  if (/\.[cm]?ts$/.test(path)) return "typescript";
  return undefined;
}
