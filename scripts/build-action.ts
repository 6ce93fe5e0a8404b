// Builds the GitHub Action's entry (src/action/main.ts) into one file,
// action/bundle/index.js, with esbuild's JS API (esbuild-wasm: no native binary). Actions
// run a checked-in file with no `npm install`, so everything the bundle loads at run
// time is either in it or in the checkout of this repository:
// - `import.meta.url` in each source file becomes the URL that file has in the
//   checkout (computed from the bundle's own URL), so prompts/, resources/ and
//   templates/ are found where they are in the repository;
// - the tree-sitter runtime and the grammars the engine parses (they live in
//   node_modules, which is not checked in) are copied to action/bundle/tree-sitter/ and
//   loaded from there.
// The output is deterministic (no timestamps, no absolute paths): test/action/bundle
// rebuilds it into a temporary directory and compares the bytes with the committed copy.
//
//   npm run build:action
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
export const ACTION_BUNDLE = join(ROOT, "action", "bundle");
/** The bundle's place in the checkout: two directories below the root, as a source file in src/<dir>/ is. */
const BUNDLE_DEPTH = "../../";
const GRAMMARS = [
  "tree-sitter.wasm",
  "tree-sitter-python.wasm",
  "tree-sitter-javascript.wasm",
  "tree-sitter-typescript.wasm",
  "tree-sitter-tsx.wasm",
];
const TREE_SITTER = join("src", "engine", "template", "tree-sitter.ts");

class BuildError extends Error {}

/** Replaces `from` in a source once at least; a source that changed shape fails the build instead of bundling something that cannot load. */
function replaceAll(text: string, from: string, to: string, file: string): string {
  if (!text.includes(from))
    throw new BuildError(
      `${file}: expected \`${from}\` (the action build rewrites it; update scripts/build-action.ts)`,
    );
  return text.split(from).join(to);
}

const checkoutUrls: Plugin = {
  name: "checkout-urls",
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const file = relative(ROOT, args.path).split(sep).join("/");
      let text = await readFile(args.path, "utf8");
      if (file === TREE_SITTER.split(sep).join("/")) {
        // createRequire keeps the bundle's own URL: the runtime is next to the bundle.
        text = replaceAll(
          text,
          'require("@vscode/tree-sitter-wasm")',
          'require("./tree-sitter/tree-sitter.cjs")',
          file,
        );
        text = replaceAll(
          text,
          'require.resolve("@vscode/tree-sitter-wasm")',
          'require.resolve("./tree-sitter/tree-sitter.cjs")',
          file,
        );
      } else if (text.includes("import.meta.url")) {
        text = text
          .split("import.meta.url")
          .join(`new URL(${JSON.stringify(BUNDLE_DEPTH + file)}, import.meta.url).href`);
      }
      return { contents: text, loader: "ts" };
    });
  },
};

/** Writes the bundle and its tree-sitter files into `outDir` (default action/bundle). */
export async function buildAction(outDir: string = ACTION_BUNDLE): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(join(outDir, "tree-sitter"), { recursive: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, "src", "action", "main.ts")],
    outfile: join(outDir, "index.js"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    legalComments: "none",
    logLevel: "warning",
    plugins: [checkoutUrls],
    // CommonJS dependencies call require() for Node's own modules: give the ESM bundle one.
    banner: {
      js: 'import { createRequire as __autogenCreateRequire } from "node:module";\nconst require = __autogenCreateRequire(import.meta.url);',
    },
  });
  const wasmDir = dirname(createRequire(import.meta.url).resolve("@vscode/tree-sitter-wasm"));
  // The root package.json says "type": "module": the CommonJS runtime needs its .cjs name.
  await copyFile(join(wasmDir, "tree-sitter.js"), join(outDir, "tree-sitter", "tree-sitter.cjs"));
  for (const grammar of GRAMMARS) await copyFile(join(wasmDir, grammar), join(outDir, "tree-sitter", grammar));
  await writeFile(join(outDir, "tree-sitter", "LICENSE"), await readFile(join(wasmDir, "..", "LICENSE")));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await buildAction(process.argv[2] ?? ACTION_BUNDLE);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
