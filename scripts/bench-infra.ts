// `npm run bench:infra -- <dir>`: runs the infrastructure-failure recogniser over real CI
// breakages (cidiff layout) and prints, per case, what it calls the failing log and the
// passing log. A flag on a failing log whose line is one the humans marked as the error
// means the marked cause is an infrastructure condition; a flag on a passing (green) log
// is a warning the recogniser would have misread if that build had failed for another
// reason.
import { existsSync } from "node:fs";
import { recogniseInfraFailure } from "../src/ci/infra-failure.ts";
import { cleanJobLog } from "../src/ci/job-log.ts";
import { loadBreakages } from "../src/eval/breakage-cases.ts";

const dir = process.argv[2];
if (!dir || !existsSync(dir)) {
  console.error("usage: npm run bench:infra -- <dir with <case>/fail.log, pass.log, groundtruth>");
  process.exit(2);
}

const cases = loadBreakages(dir);
let failFlagged = 0;
let onMarkedLine = 0;
let passFlagged = 0;
const started = performance.now();
console.log(`${"case".padEnd(28)}${"failing log".padEnd(22)}${"marked?".padEnd(9)}passing log`);
for (const c of cases) {
  const fail = recogniseInfraFailure(cleanJobLog(c.fail));
  const pass = c.pass ? recogniseInfraFailure(cleanJobLog(c.pass)) : undefined;
  const marked = fail ? c.errorLines.has(fail.lineNumber) : false;
  failFlagged += fail ? 1 : 0;
  onMarkedLine += marked ? 1 : 0;
  passFlagged += pass ? 1 : 0;
  console.log(
    `${c.name.padEnd(28)}${(fail ? `${fail.kind}:${fail.lineNumber}` : "-").padEnd(22)}${(fail ? (marked ? "yes" : "no") : "").padEnd(9)}${pass ? `${pass.kind}:${pass.lineNumber}` : "-"}`,
  );
  if (fail) console.log(`${"".padEnd(28)}${fail.line.slice(0, 110)}`);
}
const ms = performance.now() - started;
console.log(
  `\n${cases.length} breakages: failing logs called infrastructure ${failFlagged} (the flagged line is a hand-marked error line in ${onMarkedLine}); passing logs flagged ${passFlagged}; ${(ms / Math.max(1, cases.length * 2)).toFixed(1)} ms per log`,
);
