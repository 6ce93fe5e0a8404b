// A failure's signature: which tests fail and how, with numbers, addresses and paths
// masked, so "the same failure again" can be recognised across attempts.
import type { TestReport } from "../../verify/test-report.ts";
import { failingTests } from "../../verify/test-report.ts";

export function failureSignature(report: TestReport): string {
  const failing = failingTests(report);
  if (failing.length === 0)
    return report.run.timedOut ? "timeout" : report.tests.length === 0 ? `no-results:${report.run.exitCode}` : "pass";
  return failing
    .map(
      (t) =>
        `${t.id}|${(t.message ?? "")
          .split("\n")[0]
          ?.replace(/0x[0-9a-f]+/gi, "0x")
          .replace(/\d+(\.\d+)?/g, "N")
          .replace(/\/[\w./-]+/g, "<path>")
          .slice(0, 200)}`,
    )
    .sort()
    .join("\n");
}
