// A directory of CI breakages in the cidiff layout: <case>/fail.log, pass.log and
// groundtruth (a parsing option, then `E a-b` / `E n` lines marking the error lines and
// `C …` context lines). Read as latin1: the logs are bytes from many tools.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export type BreakageCase = { name: string; fail: string; pass: string | undefined; errorLines: Set<number> };

export function loadBreakages(dir: string): BreakageCase[] {
  const cases: BreakageCase[] = [];
  for (const name of readdirSync(dir).sort()) {
    const caseDir = join(dir, name);
    if (!statSync(caseDir).isDirectory() || !existsSync(join(caseDir, "groundtruth"))) continue;
    const errorLines = new Set<number>();
    for (const line of readFileSync(join(caseDir, "groundtruth"), "utf8").split("\n").slice(1)) {
      const m = /^E (\d+)(?:-(\d+))?/.exec(line.trim());
      if (!m) continue;
      for (let i = Number(m[1]); i <= Number(m[2] ?? m[1]); i++) errorLines.add(i);
    }
    const pass = join(caseDir, "pass.log");
    cases.push({ name, fail: readFileSync(join(caseDir, "fail.log"), "latin1"), pass: existsSync(pass) ? readFileSync(pass, "latin1") : undefined, errorLines });
  }
  return cases;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
