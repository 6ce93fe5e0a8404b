// Real jest on a project of several test files (vercel/ms in bench:runners): without
// --verbose jest prints only `PASS file` per file, and no test could be read.
import { describe, expect, it } from "vitest";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { countByStatus } from "../../src/verify/test-report.ts";
import { npmFixture } from "../support/npm-fixture.ts";

const FILE = (name: string, wrong: boolean) => `describe("${name}", () => {
  test("adds", () => { expect(1 + 1).toBe(2); });
  test("subtracts", () => { expect(2 - 1).toBe(${wrong ? "2" : "1"}); });
});
`;

describe("jest over several test files", () => {
  it("reads every test of every file, and selects the failing one alone", async () => {
    const dir = npmFixture(
      { jest: "^29" },
      { "test/a.test.js": FILE("a", false), "test/b.test.js": FILE("b", true) },
      { scripts: { test: "jest" } },
    );
    if (!dir) return void console.warn("jest 29 is not in the npm cache: skipped");
    const verifier = localVerifier(detectRunner(dir, "npm test"), { timeoutMs: 120_000 });
    const all = await verifier.run(dir, { kind: "all" });
    expect(countByStatus(all.tests)).toEqual({ pass: 3, fail: 1, error: 0, skip: 0 });
    const failing = all.tests.find((t) => t.status === "fail");
    expect(failing?.name).toBe("subtracts");
    const one = await verifier.run(dir, { kind: "tests", ids: [failing?.id ?? ""] });
    expect(one.tests.map((t) => `${t.id}:${t.status}`)).toEqual([`${failing?.id ?? ""}:fail`]);
  }, 300_000);
});
