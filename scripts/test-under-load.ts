// `npm run test:under-load -- [runs] [hogs]`: runs the test command (`npm test`) `runs` times
// (5 by default) while `hogs` processes (2 by default) keep the CPUs busy, as on a user's
// laptop or a shared CI runner. Prints each run's result line and duration, then the tally;
// exits 1 unless every run passed. The hogs are killed however the script ends.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";

const runs = Number(process.argv[2] ?? "5");
const hogCount = Number(process.argv[3] ?? "2");
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(hogCount) || hogCount < 0) {
  console.error("usage: npm run test:under-load -- [runs ≥ 1] [hogs ≥ 0]");
  process.exit(2);
}

// A hog is a Node process spinning forever: a busy CPU, nothing else.
const hogs: ChildProcess[] = Array.from({ length: hogCount }, () =>
  spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
);
const stopHogs = () => {
  for (const hog of hogs) hog.kill("SIGKILL");
};
process.on("exit", stopHogs);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

function runTests(log: string): Promise<{ code: number; summary: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("npm", ["test"], { stdio: ["ignore", "pipe", "pipe"] });
    const file = createWriteStream(log);
    let tail = "";
    const keep = (chunk: Buffer) => {
      file.write(chunk);
      tail = (tail + stripVTControlCharacters(chunk.toString("utf8"))).slice(-200_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("close", (code) => {
      file.end();
      const summary = tail.match(/\d+ passed, \d+ failed/g)?.at(-1) ?? "no result line";
      const failures = [...new Set([...tail.matchAll(/^\s*(?:FAIL\s|×\s).*$/gm)].map((m) => m[0].trim()))].slice(0, 12);
      resolve({
        code: code ?? 1,
        summary: failures.length > 0 ? `${summary}\n    ${failures.join("\n    ")}` : summary,
        seconds: (performance.now() - started) / 1000,
      });
    });
  });
}

console.log(
  `npm test × ${runs.toString()} beside ${hogCount.toString()} CPU hog(s) on ${(await import("node:os")).availableParallelism().toString()} CPU(s)`,
);
let passed = 0;
for (let i = 1; i <= runs; i++) {
  const log = join(tmpdir(), `test-under-load-${process.pid.toString()}-${i.toString()}.log`);
  const result = await runTests(log);
  if (result.code === 0) passed += 1;
  console.log(
    `run ${i.toString()}: ${result.code === 0 ? "pass" : `FAIL (exit ${result.code.toString()})`}, ${result.summary}, ${result.seconds.toFixed(0)} s (log: ${log})`,
  );
}
console.log(`${passed.toString()} of ${runs.toString()} runs passed`);
process.exit(passed === runs ? 0 : 1);
