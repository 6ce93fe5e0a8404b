// Localisation's two runs on a real pytest suite: the failing tests traced in full, the
// passing ones only inside the functions the failing ones ran; a test that loops is
// stopped at the given per-test limit and still counts as a failing test with its lines.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ochiai } from "../../../src/engine/template/ochiai.ts";
import { pythonSpectra } from "../../../src/engine/template/python-spectra.ts";

const LIB = `def clamp(x, lo, hi):
    if x < lo:
        return lo
    return min(x, hi - 1)


def spin(n):
    while n:
        n ^= n - 1
    return n


def other(x):
    y = x * 2
    return y + 1
`;

const TESTS = `from lib import clamp, other, spin


def test_low():
    assert clamp(-5, 0, 10) == 0


def test_high():
    assert clamp(10, 0, 10) == 10


def test_other():
    assert other(2) == 5


def test_spin():
    assert spin(6) == 0
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "spectra-focus-"));
  await mkdir(join(dir, "tests"));
  await writeFile(join(dir, "lib.py"), LIB);
  await writeFile(join(dir, "tests", "test_lib.py"), TESTS);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sandbox = { timeoutMs: 60_000, env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" } };
const lines = (spectra: Awaited<ReturnType<typeof pythonSpectra>>, id: string) =>
  [...(spectra.spectra.find((t) => t.id === id)?.lines.get("lib.py") ?? [])].sort((a, b) => a - b);

describe("pythonSpectra with the failing tests named", () => {
  it("traces passing tests only inside the failing tests' functions, and ranks the same line first", async () => {
    const failing = ["tests/test_lib.py::test_high", "tests/test_lib.py::test_spin"];
    const focused = await pythonSpectra(dir, [], { ...sandbox, failing, perTestMs: 1_000 });
    const full = await pythonSpectra(dir, [], { ...sandbox, perTestMs: 1_000 });
    expect(focused.spectra.map((t) => [t.id, t.failed]).sort()).toEqual(
      full.spectra.map((t) => [t.id, t.failed]).sort(),
    );
    // test_low runs clamp (a function test_high ran): its lines are kept; test_other runs only other(): none traced.
    expect(lines(focused, "tests/test_lib.py::test_low")).toEqual(lines(full, "tests/test_lib.py::test_low"));
    expect(lines(full, "tests/test_lib.py::test_other")).toEqual([13, 14, 15]);
    expect(lines(focused, "tests/test_lib.py::test_other")).toEqual([]);
    const rank = (s: typeof focused) =>
      ochiai(s.spectra, (file) => file === "lib.py").map((l) => `${String(l.line)}:${l.score.toFixed(3)}`);
    expect(rank(focused)).toEqual(rank(full));
    expect(
      rank(focused)
        .slice(0, 2)
        .map((l) => l.split(":")[0]),
    ).toContain("4");
  });

  it("stops a looping failing test at the per-test limit, as a failing test with the lines it ran", async () => {
    const failing = ["tests/test_lib.py::test_spin"];
    const spectra = await pythonSpectra(dir, [], { ...sandbox, failing, perTestMs: 1_000 });
    expect(spectra.spectra.find((t) => t.id === "tests/test_lib.py::test_spin")).toMatchObject({ failed: true });
    expect(lines(spectra, "tests/test_lib.py::test_spin")).toEqual([7, 8, 9]);
    // Each test appears once: the failing one from its own run, not again from the second.
    expect(spectra.spectra.filter((t) => t.id === "tests/test_lib.py::test_spin")).toHaveLength(1);
    expect(spectra.spectra).toHaveLength(4);
  });
});
