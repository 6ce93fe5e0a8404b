// The house's floors: every import in src/ points down, or sideways within its floor.
// Prints the folder graph's back-arrows and cycles; exits 1 on a back-arrow that is not in
// the known list below (a new one), or on a known one that is gone (so the list shrinks).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** Lowest first. A folder of src/ (or a top-level file) may import from its own floor or below. */
export const FLOORS: readonly (readonly string[])[] = [
  ["version.ts", "secrets", "config", "workspace", "jobs"],
  ["verify", "llm", "forge", "metrics"],
  ["ci", "engine", "triggers"],
  ["pipeline"],
  ["report", "ops", "dashboard", "eval"],
  ["cli", "app", "server", "action", "cli.ts"],
];

/** Back-arrows that exist today and are to be removed: `from -> to`. Shrinks, never grows. */
export const KNOWN_BACK_ARROWS: readonly string[] = [];

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const src = join(root, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** The top-level room of a file under src/: its first folder, or its own name. */
function room(file: string): string {
  return relative(src, file).split("/")[0] ?? "";
}

function floorOf(name: string): number {
  const index = FLOORS.findIndex((floor) => floor.includes(name));
  if (index < 0) throw new Error(`src/${name} is on no floor: add it to FLOORS in scripts/check-floors.ts`);
  return index;
}

export type Arrow = { from: string; to: string; files: string[] };

export function folderArrows(): Arrow[] {
  const arrows = new Map<string, Arrow>();
  for (const file of sourceFiles(src)) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const imported of info.importedFiles) {
      if (!imported.fileName.startsWith(".")) continue;
      const target = resolve(dirname(file), imported.fileName);
      if (!target.startsWith(src + "/")) continue;
      const [from, to] = [room(file), room(target)];
      if (from === to) continue;
      const key = `${from} -> ${to}`;
      const arrow = arrows.get(key) ?? { from, to, files: [] };
      arrow.files.push(`${relative(src, file)} -> ${relative(src, target)}`);
      arrows.set(key, arrow);
    }
  }
  return [...arrows.values()];
}

/** Strongly connected groups of more than one folder (Tarjan). */
export function folderCycles(arrows: Arrow[]): string[][] {
  const next = new Map<string, string[]>();
  for (const a of arrows) next.set(a.from, [...(next.get(a.from) ?? []), a.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of new Set(arrows.flatMap((a) => [a.from, a.to]))) if (!index.has(node)) visit(node);
  return groups;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arrows = folderArrows();
  const back = arrows.filter((a) => floorOf(a.to) > floorOf(a.from));
  const cycles = folderCycles(arrows);
  const known = new Set(KNOWN_BACK_ARROWS);
  const fresh = back.filter((a) => !known.has(`${a.from} -> ${a.to}`));
  const gone = KNOWN_BACK_ARROWS.filter((k) => !back.some((a) => `${a.from} -> ${a.to}` === k));
  const verbose = process.argv.includes("--verbose");
  console.log(
    `floors: ${arrows.length} folder arrows, ${back.length} back-arrows (${fresh.length} new), ${cycles.length} folder cycles`,
  );
  for (const cycle of cycles) console.log(`  cycle: ${cycle.join(", ")}`);
  for (const a of back) {
    console.log(
      `  ${known.has(`${a.from} -> ${a.to}`) ? "known" : "NEW  "} back-arrow ${a.from} (floor ${floorOf(a.from) + 1}) -> ${a.to} (floor ${floorOf(a.to) + 1})`,
    );
    for (const f of verbose || !known.has(`${a.from} -> ${a.to}`) ? a.files : []) console.log(`      ${f}`);
  }
  for (const k of gone) console.log(`  gone: ${k} (remove it from KNOWN_BACK_ARROWS)`);
  if (fresh.length || gone.length) process.exitCode = 1;
}
