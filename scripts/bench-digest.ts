// `npm run bench:digest -- <dir> [--no-pass-log] [--max-lines N]`: scores the log digest on a
// directory of breakages (cidiff and logchunks layout: <case>/fail.log, optional pass.log,
// groundtruth with `E a-b` error ranges): recall of the marked error lines, the share of logs
// whose digest holds at least one marked line ("hit"), and compression (log lines / digest
// lines); per-group rows when case names carry a prefix (logchunks: the language).
// Production settings: `--no-pass-log --max-lines 30` (the App passes a log of the last green
// run of the same job only when it finds one).
// Projects are split once, by a hash of the project's name (the case name without its build
// number): about 30% are held out from tuning. Every figure is printed for the development
// split and the held-out split side by side; `--tune` prints the development split only
// (per case and per group), so that a change is made without seeing the held-out marks.
// `--split` adds the summary of two halves of the
// groups (alternate groups in name order: half A the 1st, 3rd, …, half B the 2nd, 4th, …), so
// a change tuned on one half can be checked on the other. `--repeat N` digests each log N
// times and keeps the fastest time (the output is the same each time: the digest is
// deterministic), so a busy machine's stalls do not stand for the digest's speed; the load
// average is printed beside the time.
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { lineNumberingOf, loadBreakages, median } from "../src/eval/breakage-cases.ts";
import { digestLog } from "../src/verify/digest/digest-log.ts";
import { createHash } from "node:crypto";

const flag = { type: "boolean", default: false } as const;
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "no-pass-log": flag,
    "max-lines": { type: "string" },
    quiet: flag,
    split: flag,
    tune: flag,
    repeat: { type: "string", default: "1" },
  },
});
const dir = positionals[0];
const maxLines = values["max-lines"] === undefined ? 60 : Number(values["max-lines"]);
const repeat = Number(values.repeat);
if (
  !dir ||
  !existsSync(dir) ||
  !Number.isInteger(maxLines) ||
  maxLines < 2 ||
  !Number.isInteger(repeat) ||
  repeat < 1
) {
  console.error(
    "usage: npm run bench:digest -- <dir with <case>/fail.log, [pass.log], groundtruth> [--no-pass-log] [--max-lines N] [--quiet] [--split] [--tune] [--repeat N]",
  );
  process.exit(2);
}

/** The project a case comes from: its name without the build (logchunks `_failed_<id>_log`, cidiff `_<n>`). */
const projectOf = (name: string) => name.replace(/_failed_\d+_log$|_\d+$/, "");
/** Held out from tuning: the first 32 bits of the name's SHA-256 below 30% of their range. Fixed once, never chosen by result. */
const HELD_OUT_SHARE = 0.3;
const isHeldOut = (project: string) =>
  createHash("sha256").update(project).digest().readUInt32BE(0) / 2 ** 32 < HELD_OUT_SHARE;

type Row = {
  name: string;
  group: string;
  heldOut: boolean;
  logLines: number;
  digestLines: number;
  errorLines: number;
  recalled: number;
  recall: number;
  compression: number;
  ms: number;
};
const rows: Row[] = [];
const numbering = lineNumberingOf(dir);
for (const { name, fail, pass, errorLines: marked } of loadBreakages(dir, numbering)) {
  const heldOut = isHeldOut(projectOf(name));
  if (heldOut && values.tune) continue;
  const options = { passLog: values["no-pass-log"] ? undefined : pass, maxLines };
  let started = performance.now();
  const digest = digestLog(fail, options);
  let ms = performance.now() - started;
  for (let i = 1; i < repeat; i++) {
    started = performance.now();
    digestLog(fail, options);
    ms = Math.min(ms, performance.now() - started);
  }
  const shown = new Set(digest.lines);
  const recalled = [...marked].filter((l) => shown.has(l)).length;
  const digestLines = digest.text.split("\n").length;
  const group = /^([^_]+)_/.exec(name)?.[1] ?? name;
  const recall = marked.size ? recalled / marked.size : 1;
  rows.push({
    name,
    group,
    heldOut,
    logLines: digest.logLines,
    digestLines,
    errorLines: marked.size,
    recalled,
    recall,
    compression: digest.logLines / digestLines,
    ms,
  });
}

const pad = (s: string | number, n: number) => String(s).padStart(n);
const hit = (rs: Row[]) => rs.filter((r) => r.recalled > 0 || r.errorLines === 0).length / rs.length;
if (!values.quiet) {
  const width = Math.max(28, ...rows.map((r) => r.name.length + 2));
  console.log(
    `${"case".padEnd(width)}${pad("log", 7)}${pad("digest", 8)}${pad("E lines", 9)}${pad("found", 7)}${pad("recall", 8)}${pad("compr.", 8)}${pad("ms", 7)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(width)}${pad(r.logLines, 7)}${pad(r.digestLines, 8)}${pad(r.errorLines, 9)}${pad(r.recalled, 7)}${pad(r.recall.toFixed(2), 8)}${pad(`${r.compression.toFixed(1)}x`, 8)}${pad(r.ms.toFixed(1), 7)}`,
    );
  }
}
const groups = [...new Set(rows.map((r) => r.group))].sort();
const splitName = (held: boolean) => (held ? "held-out" : "dev");
if (groups.length > 1 && groups.length < rows.length) {
  console.log(
    `\n${"group".padEnd(24)}${"split".padEnd(10)}${pad("cases", 6)}${pad("hit", 7)}${pad("med. recall", 12)}${pad("med. compr.", 12)}`,
  );
  for (const g of groups) {
    for (const held of [false, true]) {
      const rs = rows.filter((r) => r.group === g && r.heldOut === held);
      if (rs.length === 0) continue;
      const cells = `${pad(rs.length, 6)}${pad(`${Math.round(hit(rs) * 100)}%`, 7)}${pad(median(rs.map((r) => r.recall)).toFixed(2), 12)}`;
      console.log(
        `${g.padEnd(24)}${splitName(held).padEnd(10)}${cells}${pad(`${median(rs.map((r) => r.compression)).toFixed(1)}x`, 12)}`,
      );
    }
  }
}
const summary = (rs: Row[]) => {
  const total = rs.reduce(
    (a, r) => ({ e: a.e + r.errorLines, f: a.f + r.recalled, l: a.l + r.logLines, d: a.d + r.digestLines }),
    { e: 0, f: 0, l: 0, d: 0 },
  );
  return (
    `median recall ${median(rs.map((r) => r.recall)).toFixed(2)} (target >= 0.90), median compression ${median(rs.map((r) => r.compression)).toFixed(1)}x (target >= 20x); ` +
    `at least one marked line in ${(hit(rs) * 100).toFixed(1)}% of logs; ` +
    `pooled recall ${(total.f / total.e).toFixed(2)}, pooled compression ${(total.l / total.d).toFixed(1)}x; median digest time ${median(rs.map((r) => r.ms)).toFixed(1)} ms${repeat > 1 ? ` (fastest of ${repeat})` : ""} at load ${loadavg()[0]?.toFixed(1)}`
  );
};
if (values.split && groups.length > 1) {
  console.log("");
  for (const [half, parity] of [
    ["A", 0],
    ["B", 1],
  ] as const) {
    const inHalf = new Set(groups.filter((_, i) => i % 2 === parity));
    const rs = rows.filter((r) => inHalf.has(r.group));
    console.log(`half ${half} (${inHalf.size} groups, ${rs.length} cases): ${summary(rs)}`);
  }
}
const projects = (rs: Row[]) => new Set(rs.map((r) => projectOf(r.name))).size;
console.log("");
for (const held of values.tune ? [false] : [false, true]) {
  const rs = rows.filter((r) => r.heldOut === held);
  if (rs.length > 0)
    console.log(`${splitName(held)} split (${projects(rs)} projects, ${rs.length} cases): ${summary(rs)}`);
}
if (values.tune) console.log("(--tune: the held-out split is not scored)");
console.log(
  `\n${rows.length} cases (max ${maxLines} lines, marks counted in ${numbering === "lf" ? "\\n-lines" : "universal lines"}, ${values["no-pass-log"] ? "no passing log" : "passing log when the case has one"}): ${summary(rows)}`,
);
