// A TypeScript project tested by vitest (its default pool: a fork per test file, ended by
// SIGTERM). vitest runs esbuild's output of each .ts file in its module wrapper, so V8's
// offsets are the transformed text's: read against the file on disk they landed on wrong lines
// (unjs/ufo ranked no line, vercel/ms under jest a line the bug's test never needed), and the
// forks, killed by their pool, wrote no coverage at all. The localiser's runs now record each
// vm-compiled script's inline source map in the test process and map the ranges back, and a
// fork's coverage is written before it is stopped. A map is the repository's: one naming files
// outside the worktree has them dropped, never read (this project's own vitest, real sandbox).
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsSpectra } from "../../../src/engine/template/js-spectra.ts";
import { ochiai } from "../../../src/engine/template/ochiai.ts";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import { grantDirectory } from "../../../src/verify/sandbox/workspace-grants.ts";

// TypeScript-only text (an interface, types, overload signatures) that esbuild drops, so every
// line below it sits elsewhere in the code vitest runs.
const SOURCE = `/**
 * Prices in cents.
 */
export interface Item {
  name: string;
  cents: number;
  qty: number;
}

export type Currency = "EUR" | "USD";

type Percent = number;

export function total(items: readonly Item[]): number {
  let sum = 0;
  for (const item of items) {
    sum += item.cents * item.qty;
  }
  return sum;
}

export function discount(cents: number, percent: Percent): number;
export function discount(cents: number, percent: Percent, floor: number): number;
export function discount(cents: number, percent: Percent, floor = 0): number {
  if (percent <= 0) {
    return cents;
  }
  if (percent >= 100) {
    return cents;
  }
  return Math.max(floor, Math.round((cents * (100 - percent)) / 100));
}

export function format(cents: number, currency: Currency): string {
  const whole = Math.floor(cents / 100);
  const rest = String(cents % 100).padStart(2, "0");
  return currency === "EUR" ? \`\${String(whole)},\${rest} EUR\` : \`$\${String(whole)}.\${rest}\`;
}
`;
/** `return cents;` under `percent >= 100`: the bug (it should return 0). */
const BUG_LINE = 29;

const TESTS = `import { describe, expect, it } from "vitest";
import { discount, format, total } from "../src/price.ts";
describe("price", () => {
${[10, 20, 30, 40, 50]
  .map(
    (p) =>
      `  it("takes ${String(p)} percent off", () => expect(discount(1000, ${String(p)})).toBe(${String(1000 - p * 10)}));`,
  )
  .join("\n")}
  it("takes nothing off at 0", () => expect(discount(1000, 0)).toBe(1000));
  it("adds up", () => expect(total([{ name: "a", cents: 250, qty: 2 }])).toBe(500));
  it("formats", () => expect(format(1234, "EUR")).toBe("12,34 EUR"));
  it("gives it away at 100 percent", () => expect(discount(1000, 100)).toBe(0));
});
`;

// A test that compiles a script of the worktree through node:vm with a map naming files outside it.
const HOSTILE = `import { runInThisContext } from "node:vm";
import { join } from "node:path";
import { expect, it } from "vitest";
it("runs a script whose map names files outside the worktree", () => {
  const map = { version: 3, names: [], mappings: "AAAA;ACAA;ACAA", sources: ["../../../../../../../../etc/passwd", "/etc/hostname", "file:///etc/group"] };
  const code = "globalThis.a = 1;\\nglobalThis.b = 2;\\nglobalThis.c = 3;\\n//# sourceMappingURL=data:application/json;base64," + Buffer.from(JSON.stringify(map)).toString("base64");
  runInThisContext(code, { filename: join(process.cwd(), "src/vendored.js") });
  expect(globalThis.c).toBe(3);
});
`;

describe("JavaScript localisation of TypeScript run by vitest (transformed code)", () => {
  it("maps V8's ranges through each script's source map: the bug's line of the .ts file ranks first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autogen-vitest-source-map-"));
    try {
      mkdirSync(join(dir, "src"));
      mkdirSync(join(dir, "test"));
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ name: "p", private: true, type: "module", scripts: { test: "vitest run" } }),
      );
      writeFileSync(join(dir, "src/price.ts"), SOURCE);
      writeFileSync(join(dir, "src/vendored.js"), "globalThis.a = 1;\n");
      writeFileSync(join(dir, "test/price.test.ts"), TESTS);
      writeFileSync(join(dir, "test/hostile.test.ts"), HOSTILE);
      // This project's own vitest, shown to the sandbox read-only as the CLI does.
      symlinkSync(join(import.meta.dirname, "../../../node_modules"), join(dir, "node_modules"));
      grantDirectory(dir, join(import.meta.dirname, "../../../node_modules"));
      const verifier = localVerifier(detectRunner(dir), { timeoutMs: 180_000 });
      const all = await verifier.run(dir, { kind: "all" });
      const failing = all.tests.filter((t) => t.status === "fail").map((t) => t.id);
      expect(failing).toEqual(["test/price.test.ts > price > gives it away at 100 percent"]);

      const js = await jsSpectra(dir, verifier, failing, "all");
      expect(js.spectra.map((s) => [s.id, s.failed])).toEqual([[failing[0], true]]);
      const lines = [...(js.spectra[0]?.lines.get("src/price.ts") ?? [])].sort((a, b) => a - b);
      // The failing test's lines of discount, by the .ts file's numbering: its checks and the bug's return.
      expect(lines).toEqual(expect.arrayContaining([25, 28, BUG_LINE]));
      // Neither the checks it did not reach, nor the TypeScript-only lines (no code ran there).
      for (const line of [4, 5, 10, 12, 22, 23, 26, 31]) expect(lines).not.toContain(line);
      const ranked = ochiai(js.spectra, (file) => file.startsWith("src/"), js.passed);
      expect(ranked[0]).toMatchObject({ file: "src/price.ts", line: BUG_LINE, failedCovering: 1, passedCovering: 0 });

      // The hostile map's sources are dropped by name, never read: no line of theirs anywhere.
      expect(js.dropped).toEqual(expect.arrayContaining(["/etc/passwd", "/etc/hostname", "/etc/group"]));
      for (const spectrum of js.spectra)
        expect([...spectrum.lines.keys()].filter((file) => file.includes("etc/"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
