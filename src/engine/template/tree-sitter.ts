// Maintained tree-sitter grammars as WebAssembly (VS Code's build): real syntax trees
// with no native addon. Loaded once per process.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as TreeSitter from "@vscode/tree-sitter-wasm";

const require = createRequire(import.meta.url);

export type SyntaxNode = TreeSitter.Node;
export type SyntaxTree = TreeSitter.Tree;

let parser: Promise<TreeSitter.Parser> | undefined;

export function pythonParser(): Promise<TreeSitter.Parser> {
  parser ??= (async () => {
    const ts = require("@vscode/tree-sitter-wasm") as typeof TreeSitter;
    const dir = dirname(require.resolve("@vscode/tree-sitter-wasm"));
    await ts.Parser.init({ locateFile: (file: string) => join(dir, file) });
    const language = await ts.Language.load(join(dir, "tree-sitter-python.wasm"));
    const p = new ts.Parser();
    p.setLanguage(language);
    return p;
  })();
  return parser;
}

export async function parsePython(source: string): Promise<SyntaxTree> {
  const tree = (await pythonParser()).parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree");
  return tree;
}
