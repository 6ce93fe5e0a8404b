// Real node --test (jsdom's whatwg-mimetype layout: one test name in several suites): a
// selected test comes back alone, without the tests the name pattern left out (which node
// reports as skipped) or its namesakes in other suites.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { countByStatus } from "../../src/verify/test-report.ts";

const SUITE = `const { describe, it } = require("node:test");
const assert = require("node:assert/strict");
describe("text/html", () => {
  it("serializes correctly", () => assert.equal("text/html", "text/html"));
  it("has the correct essence", () => assert.ok(true));
});
describe("image/png", () => {
  it("serializes correctly", () => assert.equal("image/PNG", "image/png"));
  it("has the correct essence", () => assert.ok(true));
});
`;

describe("node --test selection", () => {
  it("keeps the selected test only: not the tests node skipped, not a namesake in another suite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autogen-nodesel-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "node --test" } }));
    writeFileSync(join(dir, "mime.test.js"), SUITE);
    const verifier = localVerifier(detectRunner(dir, "npm test"), { timeoutMs: 60_000 });
    const all = await verifier.run(dir, { kind: "all" });
    expect(countByStatus(all.tests)).toEqual({ pass: 3, fail: 1, error: 0, skip: 0 });
    const failing = all.tests.find((t) => t.status === "fail");
    expect(failing?.id).toContain("image/png");
    const one = await verifier.run(dir, { kind: "tests", ids: [failing?.id ?? ""] });
    expect(one.tests.map((t) => `${t.id}:${t.status}`)).toEqual([`${failing?.id ?? ""}:fail`]);
  }, 120_000);
});
