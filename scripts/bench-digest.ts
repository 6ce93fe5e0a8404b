// `npm run bench:digest -- <dir>`: scores the log digest on a directory of breakages
// (cidiff layout: <case>/fail.log, pass.log, groundtruth with `E a-b` error ranges):
// recall of the marked error lines and compression (log lines / digest lines).
import { existsSync } from "node:fs";
import { loadBreakages, median } from "../src/eval/breakage-cases.ts";
import { digestLog } from "../src/verify/digest/digest-log.ts";

const dir = process.argv[2];
if (!dir || !existsSync(dir)) {
  console.error("usage: npm run bench:digest -- <dir with <case>/fail.log, pass.log, groundtruth>");
  process.exit(2);
}

const rows: Array<{ name: string; logLines: number; digestLines: number; errorLines: number; recalled: number; recall: number; compression: number; ms: number }> = [];
for (const { name, fail, pass, errorLines: marked } of loadBreakages(dir)) {
  const started = performance.now();
  const digest = digestLog(fail, { passLog: pass });
  const ms = performance.now() - started;
  const shown = new Set(digest.lines);
  const recalled = [...marked].filter((l) => shown.has(l)).length;
  const digestLines = digest.text.split("\n").length;
  rows.push({ name, logLines: digest.logLines, digestLines, errorLines: marked.size, recalled, recall: marked.size ? recalled / marked.size : 1, compression: digest.logLines / digestLines, ms });
}

const pad = (s: string | number, n: number) => String(s).padStart(n);
console.log(`${"case".padEnd(28)}${pad("log", 7)}${pad("digest", 8)}${pad("E lines", 9)}${pad("found", 7)}${pad("recall", 8)}${pad("compr.", 8)}${pad("ms", 7)}`);
for (const r of rows) {
  console.log(`${r.name.padEnd(28)}${pad(r.logLines, 7)}${pad(r.digestLines, 8)}${pad(r.errorLines, 9)}${pad(r.recalled, 7)}${pad(r.recall.toFixed(2), 8)}${pad(`${r.compression.toFixed(1)}x`, 8)}${pad(r.ms.toFixed(1), 7)}`);
}
const total = rows.reduce((a, r) => ({ e: a.e + r.errorLines, f: a.f + r.recalled, l: a.l + r.logLines, d: a.d + r.digestLines }), { e: 0, f: 0, l: 0, d: 0 });
console.log(
  `\n${rows.length} cases: median recall ${median(rows.map((r) => r.recall)).toFixed(2)} (target >= 0.90), median compression ${median(rows.map((r) => r.compression)).toFixed(1)}x (target >= 20x); ` +
    `pooled recall ${(total.f / total.e).toFixed(2)}, pooled compression ${(total.l / total.d).toFixed(1)}x; median digest time ${median(rows.map((r) => r.ms)).toFixed(1)} ms`,
);
