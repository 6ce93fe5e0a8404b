// The lint rule that keeps the unsafe read from being written again (eslint.config.js): in
// src/, a node:fs read, in any of the forms that reach it (named import, namespace or
// default import, `promises`, a dynamic import, require, a FileHandle's readFile, a
// copyFile that follows a link), is an error outside the named readers of the bot's own
// files; the gate's functions and fs metadata calls are not. Linted with the project's own
// configuration, as `npm run lint` does.
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The messages of the read rule for `code` as if it were the file at `path` (relative to the repository). */
async function readRuleMessages(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${path}` });
  return (result?.messages ?? [])
    .filter((m) => /read-worktree-file\.ts/.test(m.message))
    .map((m) => `${m.ruleId}: ${m.line}`);
}

const UNSAFE: Array<[string, string]> = [
  [
    "named import of readFile",
    'import { readFile } from "node:fs/promises";\nexport const f = (p: string) => readFile(p, "utf8");\n',
  ],
  [
    "readFileSync from fs",
    'import { readFileSync } from "fs";\nexport const f = (p: string) => readFileSync(p, "utf8");\n',
  ],
  [
    "createReadStream",
    'import { createReadStream } from "node:fs";\nexport const f = (p: string) => createReadStream(p);\n',
  ],
  ["open of a handle", 'import { open } from "node:fs/promises";\nexport const f = (p: string) => open(p);\n'],
  [
    "copyFile (follows a link)",
    'import { copyFile } from "node:fs/promises";\nexport const f = (a: string, b: string) => copyFile(a, b);\n',
  ],
  ["fs.promises", 'import { promises } from "node:fs";\nexport const f = (p: string) => promises.readFile(p);\n'],
  ["namespace import", 'import * as fs from "node:fs";\nexport const f = (p: string) => fs.readFileSync(p);\n'],
  ["default import", 'import fs from "node:fs";\nexport const f = (p: string) => fs.readFileSync(p);\n'],
  [
    "dynamic import (the form that once read /proc/self/environ)",
    'export const f = async (p: string) => (await import("node:fs/promises")).readFile(p, "utf8");\n',
  ],
  [
    "require",
    'declare const require: (name: string) => { readFileSync(p: string): string };\nexport const f = (p: string) => require("fs").readFileSync(p);\n',
  ],
  [
    "a FileHandle's readFile",
    'type H = { readFile(e: string): Promise<string> };\nexport const f = (handle: H) => handle.readFile("utf8");\n',
  ],
];

describe("the worktree-read lint rule", () => {
  for (const [name, code] of UNSAFE) {
    it(`fires in the engine, verify and workspace folders: ${name}`, async () => {
      for (const path of [
        "src/engine/lpw/new-reader.ts",
        "src/verify/new-reader.ts",
        "src/workspace/new-reader.ts",
        "src/eval/score-new.ts",
      ]) {
        expect(await readRuleMessages(path, code), `${path}: ${name}`).not.toEqual([]);
      }
    });
  }

  it("does not fire on the gate's readers, fs metadata or writes", async () => {
    const code = [
      'import { existsSync, lstatSync, readdirSync } from "node:fs";',
      'import { mkdir, writeFile } from "node:fs/promises";',
      'import { readWorktreeText } from "../../workspace/read-worktree-file.ts";',
      'export const f = async (root: string) => (existsSync(root) && lstatSync(root).isDirectory() ? readdirSync(root).length : 0) + (await readWorktreeText(root, "a.py")).length;',
      'export const g = async (root: string) => { await mkdir(root); await writeFile(`${root}/x`, "x"); };',
      "",
    ].join("\n");
    expect(await readRuleMessages("src/engine/lpw/new-reader.ts", code)).toEqual([]);
  });

  it("is off in the named readers of the bot's own files and in tests, on in the rest of src/eval", async () => {
    const code = 'import { readFileSync } from "node:fs";\nexport const f = (p: string) => readFileSync(p, "utf8");\n';
    for (const path of [
      "src/llm/prompts.ts",
      "src/workspace/read-worktree-file.ts",
      "src/eval/humanevalfix-loader.ts",
      "test/engine/anything.test.ts",
    ]) {
      expect(await readRuleMessages(path, code), path).toEqual([]);
    }
    expect(await readRuleMessages("src/eval/score-hidden.ts", code)).not.toEqual([]);
  });
});
