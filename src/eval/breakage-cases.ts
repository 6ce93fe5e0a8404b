// A directory of CI breakages in the cidiff layout: <case>/fail.log, pass.log and
// groundtruth (a parsing option, then `E a-b` / `E n` lines marking the error lines and
// `C …` context lines). Read as latin1: the logs are bytes from many tools.
//
// The two data sets count lines differently: cidiff's marks count a lone \r as a line end
// (as the digest's universal newlines do), LogChunks' marks count \n only (a lone \r there is
// a progress bar or a Travis fold marker inside a line). `lineNumbers: "lf"` translates such
// marks into the digest's numbering: a marked line becomes every segment it holds.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export type BreakageCase = { name: string; fail: string; pass: string | undefined; errorLines: Set<number> };
export type LineNumbering = "universal" | "lf";

/** LogChunks marks \n-lines; cidiff marks universal lines. Told apart by the data set's README. */
export function lineNumberingOf(dir: string): LineNumbering {
  const readme = join(dir, "README.md");
  return existsSync(readme) && /LogChunks/.test(readFileSync(readme, "utf8")) ? "lf" : "universal";
}

/** For each 1-based \n-line, the 1-based universal lines (\r\n, \n, lone \r) it spans. */
export function universalLinesOfLf(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let universal = 1;
  for (const line of text.split("\n")) {
    const body = line.endsWith("\r") ? line.slice(0, -1) : line;
    const segments = body.split("\r").length;
    spans.push([universal, universal + segments - 1]);
    universal += segments;
  }
  return spans;
}

export function loadBreakages(dir: string, lineNumbers: LineNumbering = "universal"): BreakageCase[] {
  const cases: BreakageCase[] = [];
  for (const name of readdirSync(dir).sort()) {
    const caseDir = join(dir, name);
    if (!statSync(caseDir).isDirectory() || !existsSync(join(caseDir, "groundtruth"))) continue;
    const fail = readFileSync(join(caseDir, "fail.log"), "latin1");
    const spans = lineNumbers === "lf" ? universalLinesOfLf(fail) : undefined;
    const errorLines = new Set<number>();
    for (const line of readFileSync(join(caseDir, "groundtruth"), "utf8").split("\n").slice(1)) {
      const m = /^E (\d+)(?:-(\d+))?/.exec(line.trim());
      if (!m) continue;
      for (let i = Number(m[1]); i <= Number(m[2] ?? m[1]); i++) {
        const span = spans?.[i - 1];
        if (!spans) errorLines.add(i);
        else if (span) for (let u = span[0]; u <= span[1]; u++) errorLines.add(u);
      }
    }
    const pass = join(caseDir, "pass.log");
    cases.push({ name, fail, pass: existsSync(pass) ? readFileSync(pass, "latin1") : undefined, errorLines });
  }
  return cases;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
