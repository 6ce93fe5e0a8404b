// The second dataset kind: a directory of task repositories, one per subdirectory, each
// with its code and visible tests, and a `hidden/` folder whose files are added beside
// the engine's final code for scoring (and never shown to the engine).
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import type { EvalTask } from "./humanevalfix-loader.ts";

export async function loadLocalTasks(dir: string): Promise<EvalTask[]> {
  const tasks: EvalTask[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const root = join(dir, name);
    if (!(await stat(root)).isDirectory()) continue;
    const files: Record<string, string> = {};
    const hiddenFiles: Record<string, string> = {};
    for (const path of await listFiles(root)) {
      const rel = relative(root, path);
      if (rel.startsWith("hidden/")) hiddenFiles[rel.slice("hidden/".length)] = await readFile(path, "utf8");
      else files[rel] = await readFile(path, "utf8");
    }
    if (Object.keys(hiddenFiles).length === 0) throw new Error(`${root}: a task needs hidden tests in hidden/`);
    tasks.push({ id: name, bugType: "local", files, hiddenFiles, solutionFiles: Object.keys(files).filter((f) => !/^(tests?\/|test_)|_test\.|\.test\./.test(f)) });
  }
  return tasks;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === ".git" || entry.name === "__pycache__" || entry.name === "node_modules") continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}
