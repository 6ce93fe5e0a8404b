// The second dataset kind: a directory of task repositories, one per subdirectory.
// A task is either `repo/` (the repository the engine works in), `hidden/` (tests added
// beside the engine's final code for scoring), `reference/` (files that replace the
// repository's to make the reference fix) and `issue.md` (what a user reported; without
// it the task is a red build); or, the older shape, the repository's files at the top
// with `hidden/` beside them. Hidden tests and the reference fix are never shown to the engine.
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { isTestFile } from "../engine/is-test-file.ts";
import type { EvalTask } from "./humanevalfix-loader.ts";

export async function loadLocalTasks(dir: string): Promise<EvalTask[]> {
  const tasks: EvalTask[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const root = join(dir, name);
    if (!(await stat(root)).isDirectory()) continue;
    tasks.push(existsSync(join(root, "repo")) ? await repositoryTask(name, root) : await flatTask(name, root));
  }
  return tasks;
}

async function repositoryTask(id: string, root: string): Promise<EvalTask> {
  const files = await readTree(join(root, "repo"));
  const hiddenFiles = existsSync(join(root, "hidden")) ? await readTree(join(root, "hidden")) : {};
  if (Object.keys(hiddenFiles).length === 0) throw new Error(`${root}: a task needs hidden tests in hidden/`);
  const notTests = Object.keys(hiddenFiles).filter((f) => !isTestFile(f));
  if (notTests.length > 0)
    throw new Error(`${root}: hidden/${notTests[0]} is not named as a test file, so scoring would not run it`);
  const referenceFiles = existsSync(join(root, "reference")) ? await readTree(join(root, "reference")) : undefined;
  const issue = existsSync(join(root, "issue.md"))
    ? (await readFile(join(root, "issue.md"), "utf8")).trim()
    : undefined;
  if (issue === "") throw new Error(`${root}: issue.md is empty`);
  return {
    id,
    bugType: issue === undefined ? "failing-tests" : "issue",
    files,
    hiddenFiles,
    solutionFiles: Object.keys(files).filter((f) => !isTestFile(f)),
    issue,
    referenceFiles,
    visibleFromBaseline: true,
  };
}

async function flatTask(id: string, root: string): Promise<EvalTask> {
  const files: Record<string, string> = {};
  const hiddenFiles: Record<string, string> = {};
  for (const [rel, text] of Object.entries(await readTree(root))) {
    if (rel.startsWith("hidden/")) hiddenFiles[rel.slice("hidden/".length)] = text;
    else files[rel] = text;
  }
  if (Object.keys(hiddenFiles).length === 0) throw new Error(`${root}: a task needs hidden tests in hidden/`);
  return {
    id,
    bugType: "local",
    files,
    hiddenFiles,
    solutionFiles: Object.keys(files).filter((f) => !/^(tests?\/|test_)|_test\.|\.test\./.test(f)),
  };
}

async function readTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of await listFiles(root)) out[relative(root, path)] = await readFile(path, "utf8");
  return out;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (
      entry.name === ".git" ||
      entry.name === "__pycache__" ||
      entry.name === "node_modules" ||
      entry.name === ".pytest_cache"
    )
      continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}
