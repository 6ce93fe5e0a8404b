// A vitest project whose command type-checks too (`vitest run --typecheck`, as unjs/ufo's does):
// each of the localiser's runs paid a tsc pass over the project, and counted the type tests
// (which run no code) among the passing tests that tell lines apart. Under V8 coverage the
// runs leave the type-check out (this project's own vitest, real sandbox).
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsSpectra } from "../../../src/engine/template/js-spectra.ts";
import { localVerifier, type Verifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import type { TestSelection } from "../../../src/verify/runners/test-runner.ts";
import { grantDirectory } from "../../../src/verify/sandbox/workspace-grants.ts";

const SOURCE = `export function clamp(x: number, lo: number, hi: number): number {
  if (x < lo) return lo;
  if (x > hi) return lo;
  return x;
}
`;
const TESTS = `import { describe, expect, it } from "vitest";
import { clamp } from "../src/clamp.ts";
describe("clamp", () => {
${Array.from({ length: 5 }, (_, i) => `  it("keeps ${String(i)}", () => expect(clamp(${String(i)}, 0, 9)).toBe(${String(i)}));`).join("\n")}
  it("caps above", () => expect(clamp(30, 0, 9)).toBe(9));
});
`;
const TYPES = `import { describe, expectTypeOf, it } from "vitest";
import { clamp } from "../src/clamp.ts";
describe("clamp types", () => {
  it("returns a number", () => expectTypeOf(clamp(1, 0, 2)).toEqualTypeOf<number>());
  it("takes three numbers", () => expectTypeOf(clamp).parameters.toEqualTypeOf<[number, number, number]>());
});
`;

describe("JavaScript localisation on a vitest project that type-checks in its command", () => {
  it("runs its coverage runs without the type-check: the type tests are no passing test there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autogen-vitest-typecheck-"));
    try {
      mkdirSync(join(dir, "src"));
      mkdirSync(join(dir, "test"));
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ name: "v", private: true, type: "module", scripts: { test: "vitest run --typecheck" } }),
      );
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: { strict: true, module: "nodenext", noEmit: true, allowImportingTsExtensions: true },
        }),
      );
      writeFileSync(join(dir, "src/clamp.ts"), SOURCE);
      writeFileSync(join(dir, "test/clamp.test.ts"), TESTS);
      writeFileSync(join(dir, "test/clamp.test-d.ts"), TYPES);
      // This project's own vitest (and typescript), shown to the sandbox read-only as the CLI does.
      symlinkSync(join(import.meta.dirname, "../../../node_modules"), join(dir, "node_modules"));
      grantDirectory(dir, join(import.meta.dirname, "../../../node_modules"));
      const real = localVerifier(detectRunner(dir), { timeoutMs: 180_000 });
      const covered: TestSelection[] = [];
      const verifier: Verifier = {
        run(workspace, selection, extraEnv, limit) {
          if (extraEnv?.NODE_V8_COVERAGE) covered.push(selection);
          return real.run(workspace, selection, extraEnv, limit);
        },
      };
      // The command as written: the runtime tests and the type tests.
      const all = await real.run(dir, { kind: "all" });
      const failing = all.tests.filter((t) => t.status === "fail").map((t) => t.id);
      const passing = all.tests.filter((t) => t.status === "pass").map((t) => t.id);
      expect(failing).toEqual(["test/clamp.test.ts > clamp > caps above"]);
      expect(passing.filter((id) => id.startsWith("test/clamp.test-d.ts"))).toHaveLength(2);
      expect(passing).toHaveLength(7);

      const js = await jsSpectra(dir, verifier, failing, passing);
      expect(covered).toHaveLength(3);
      // The five runtime tests that passed; the type tests ran no code.
      expect(js.passing).toBe(5);
      expect(js.spectra.map((s) => [s.id, s.failed])).toEqual([[failing[0], true]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
