// Code that changes how other tests run without touching a test's own lines or a config
// file: pytest plugin or hook code in any Python module (loaded by a test file's
// `pytest_plugins`, it can turn every test into a no-op), and, in test files new or old,
// module-level code that patches what it imports (`_pytest.python.Function.runtest = …`,
// `calc.add = …` before the tests import it) or ends the test process (`process.exit(0)`).
// The outcome check cannot see these: every test still runs and passes.
import type { DiffFile } from "./parse-diff.ts";

/** pytest's plugin surface: hooks, hook markers, the plugin list a test module may declare, pytest internals. */
const PYTEST_PLUGIN_CODE =
  /\bpytest_plugins\b|^\s*(?:async\s+)?def\s+pytest_[a-z_]+\s*\(|\bhookimpl\b|\bhookwrapper\b|\b_pytest\b|\bpluggy\b/;
/** Ends the test process before the tests report (their results are never seen). */
const PROCESS_EXIT = /\bprocess\.(?:exit|reallyExit|abort)\s*\(|\bprocess\.exitCode\s*=|\bos\._exit\s*\(/;
/** A module-level assignment to an attribute: `name.attr = …`, `require("x").attr = …`, `name["attr"] = …`. */
const ATTRIBUTE_ASSIGNMENT = /^([A-Za-z_$][\w$]*)(?:\([^)]*\))?(?:\.[\w$]+|\[[^\]]+\])+\s*=(?![=>])/;
/** Module-level calls that patch an object by name. */
const PATCH_CALL = /^(?:setattr|delattr|Object\.defineProperty|Object\.assign|Reflect\.set)\s*\(/;

export type PluginCode = { file: string; line: number; text: string };
export type ImportPatch = { kind: "patch-at-import" | "exit-added"; line: number; detail: string };

/** The first added line of a Python file that is pytest plugin or hook code, if any. */
export function pluginCodeIn(file: DiffFile): PluginCode | undefined {
  const path = file.newPath;
  if (path === null || !path.endsWith(".py")) return undefined;
  const added = file.added.find((a) => PYTEST_PLUGIN_CODE.test(a.text));
  return added ? { file: path, line: added.line, text: shown(added.text) } : undefined;
}

/**
 * Added lines of a test file that patch imported code at module level or end the process.
 * `after`: the file's whole text after the change, to know which names it imports
 * (without it, the added lines alone).
 */
export function importPatchesIn(file: DiffFile, after: string | null | undefined): ImportPatch[] {
  const imported = importedNames(after ?? file.added.map((a) => a.text).join("\n"));
  const found: ImportPatch[] = [];
  for (const added of file.added) {
    if (PROCESS_EXIT.test(added.text)) {
      found.push({ kind: "exit-added", line: added.line, detail: `${shown(added.text)} (ends the test process)` });
      continue;
    }
    const assigned = ATTRIBUTE_ASSIGNMENT.exec(added.text);
    const root = assigned?.[1];
    const patches =
      PATCH_CALL.test(added.text) ||
      (root !== undefined && (imported.has(root) || added.text.startsWith(`${root}(`)) && !isExports(added.text));
    if (patches)
      found.push({
        kind: "patch-at-import",
        line: added.line,
        detail: `${shown(added.text)} (changes imported code when the test file loads)`,
      });
  }
  return found;
}

/** A line as a report quotes it: trimmed, no backticks, cut at 120 characters with the cut marked. */
function shown(line: string): string {
  const text = line.trim().replaceAll("`", "'");
  return text.length > 120 ? `${text.slice(0, 120)}… (cut)` : text;
}

/** `module.exports.x = …` and `exports.x = …` define the file's own exports. */
function isExports(line: string): boolean {
  return /^(?:module\.)?exports\b/.test(line);
}

/** Names a Python or JavaScript file binds by importing: `import a.b` (a), `from x import y as z` (z), `const { a } = require(…)`. */
function importedNames(text: string): Set<string> {
  const names = new Set<string>();
  const add = (list: string) => {
    for (const part of list.split(",")) {
      const name = /(?:\bas\s+|:\s*)?([A-Za-z_$][\w$]*)\s*$/.exec(part.replace(/[(){}*]/g, " ").trim())?.[1];
      if (name) names.add(name);
    }
  };
  for (const line of text.split("\n")) {
    const py = /^\s*import\s+(.+)$/.exec(line);
    if (py?.[1] && !/\bfrom\b/.test(py[1]))
      for (const part of py[1].split(",")) {
        const m = /^\s*([\w.]+)(?:\s+as\s+(\w+))?/.exec(part);
        const name = m?.[2] ?? m?.[1]?.split(".")[0];
        if (name) names.add(name);
      }
    const from = /^\s*from\s+\S+\s+import\s+(.+)$/.exec(line);
    if (from?.[1]) add(from[1]);
    const js = /^\s*(?:const|let|var)\s+(.+?)\s*=\s*(?:await\s+)?(?:require|import)\s*\(/.exec(line);
    if (js?.[1]) add(js[1]);
    const esm = /^\s*import\s+(.+?)\s+from\s+["']/.exec(line);
    if (esm?.[1]) add(esm[1]);
  }
  return names;
}
