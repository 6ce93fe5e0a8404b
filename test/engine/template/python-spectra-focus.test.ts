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


def evens(n):
    for i in range(n):
        if i % 2 == 0:
            yield i
        elif i < 0:
            yield -i
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

const EVENS_TESTS = `import pytest

from lib import evens


def test_evens_bug():
    assert sum(evens(10)) == 21


def test_evens_many():
    assert len(list(evens(100000))) == 50000


def test_evens_few():
    assert list(evens(3)) == [0, 2]


@pytest.mark.parametrize("n", range(12))
def test_evens_small(n):
    assert len(list(evens(n))) == (n + 1) // 2
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
    // test_low runs clamp (a function test_high ran): the lines test_high ran too are kept (line 3 cannot rank:
    // no failing test ran it); test_other runs only other(): none traced.
    expect(lines(full, "tests/test_lib.py::test_low")).toEqual([1, 2, 3]);
    expect(lines(focused, "tests/test_lib.py::test_low")).toEqual([1, 2]);
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

  it("records each focus line once per test, in every test that runs it, and ranks as the full trace does", async () => {
    // A generator the failing test ran, resumed 100,000 times by one passing test: its focus lines are each
    // recorded once, then the frame is no longer traced; the next test records them again.
    await writeFile(join(dir, "tests", "test_evens.py"), EVENS_TESTS);
    const ids = ["test_evens_bug", "test_evens_many", "test_evens_few"].map((name) => `tests/test_evens.py::${name}`);
    const failing = ["tests/test_evens.py::test_evens_bug"];
    const focused = await pythonSpectra(dir, ids, { ...sandbox, failing, perTestMs: 5_000 });
    const full = await pythonSpectra(dir, ids, { ...sandbox, perTestMs: 5_000 });
    const evensLines = [18, 19, 20, 21, 22];
    expect(lines(full, "tests/test_evens.py::test_evens_bug")).toEqual(evensLines);
    expect(lines(full, "tests/test_evens.py::test_evens_many")).toEqual(evensLines);
    expect(lines(focused, "tests/test_evens.py::test_evens_many")).toEqual(evensLines);
    expect(lines(focused, "tests/test_evens.py::test_evens_few")).toEqual(evensLines);
    const rank = (s: typeof focused) =>
      ochiai(s.spectra, (file) => file === "lib.py").map((l) => `${String(l.line)}:${l.score.toFixed(3)}`);
    expect(rank(focused)).toEqual(rank(full));
  });

  it("leaves the heaviest passing tests out of the focus run when they hold most of the suite's time", async () => {
    await writeFile(join(dir, "tests", "test_evens.py"), EVENS_TESTS);
    const failing = ["tests/test_lib.py::test_high"];
    // Timings as the unchanged code's run gave them: test_evens_many holds most of the suite's time.
    const durations = new Map<string, number>([
      ["tests/test_lib.py::test_low", 2],
      ["tests/test_lib.py::test_high", 2],
      ["tests/test_lib.py::test_other", 2],
      ["tests/test_evens.py::test_evens_many", 400],
      ["tests/test_evens.py::test_evens_few", 2],
      ...Array.from({ length: 12 }, (_, n) => [`tests/test_evens.py::test_evens_small[${String(n)}]`, 2] as const),
    ]);
    const spectra = await pythonSpectra(dir, [...durations.keys()], {
      ...sandbox,
      failing,
      durations,
      perTestMs: 5_000,
    });
    expect(spectra.untraced).toEqual(["tests/test_evens.py::test_evens_many"]);
    expect(spectra.spectra.map((t) => t.id).sort()).toEqual(
      [...durations.keys()].filter((id) => !id.endsWith("test_evens_many")).sort(),
    );
    expect(lines(spectra, "tests/test_lib.py::test_low")).toEqual([1, 2]);
    expect(ochiai(spectra.spectra, (file) => file === "lib.py")[0]).toMatchObject({ line: 4, score: 1 });
  });
});

describe("pythonSpectra with the command's own pytest arguments", () => {
  it("keeps the command's options in every run and its paths in the whole suite's run", async () => {
    // The repository's config asks for a plugin option this machine lacks, which its command clears
    // (`pytest -o addopts= tests`); a folder outside the command's path cannot even be collected.
    await writeFile(join(dir, "pytest.ini"), "[pytest]\naddopts = --cov=lib\n");
    await writeFile(join(dir, "tests", "test_lib.py"), TESTS.replace(/\n\n\ndef test_spin[\s\S]*$/, "\n"));
    await mkdir(join(dir, "scratch"));
    await writeFile(join(dir, "scratch", "test_broken.py"), "import no_such_module_anywhere\n");
    const failing = ["tests/test_lib.py::test_high"];
    const spectra = await pythonSpectra(dir, [], {
      ...sandbox,
      failing,
      perTestMs: 5_000,
      commandArgs: ["-o", "addopts=", "tests"],
    });
    // Each test once; the failing test's run named it alone (the command's `tests` left out there).
    expect(spectra.spectra.map((t) => [t.id, t.failed]).sort()).toEqual([
      ["tests/test_lib.py::test_high", true],
      ["tests/test_lib.py::test_low", false],
      ["tests/test_lib.py::test_other", false],
    ]);
    expect(lines(spectra, "tests/test_lib.py::test_low")).toEqual([1, 2]);
    expect(ochiai(spectra.spectra, (file) => file === "lib.py")[0]).toMatchObject({ line: 4, score: 1 });
  });
});
