// `npm run bench:localise -- [repo-dir]`: what localisation costs beside the plain suite.
// On a generated 500-test Python repository (a temp folder, no network) with one bug that
// fails a handful of tests: the plain suite as the bot runs it, the per-test coverage run
// as localisation now makes it (the failing tests traced in full, the others only inside the
// functions those ran, the heaviest passing tests left out when they hold most of the
// suite's time: trace-selection.ts), and the full line trace of every test it replaced. Target: ≤ 3 ×.
// With a directory (e.g. a fetched snapshot of more-itertools with a bug planted), the same
// figures there (its full trace left out: it takes many minutes).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ochiai } from "../src/engine/template/ochiai.ts";
import { pythonSpectra } from "../src/engine/template/python-spectra.ts";
import { localVerifier } from "../src/verify/local-verifier.ts";
import { pytestRunner } from "../src/verify/runners/detect-runner.ts";

const SANDBOX = { timeoutMs: 1_800_000, env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" } };
const MODULES = 20;
const TESTS_PER_MODULE = 25;

function moduleSource(k: number): string {
  // Module 0 carries the bug: chunked drops the last partial chunk.
  const stop = k === 0 ? "len(seq) - n + 1" : "len(seq)";
  return `def digit_sum(n):
    total = 0
    while n:
        total += n % 10
        n //= 10
    return total


def primes_below(n):
    found = []
    for c in range(2, n):
        if all(c % p for p in found if p * p <= c):
            found.append(c)
    return found


def windows(seq, size):
    for i in range(len(seq) - size + 1):
        yield tuple(seq[i:i + size])


def chunked(seq, n):
    out = []
    for i in range(0, ${stop}, n):
        out.append(list(seq[i:i + n]))
    return out


def run_lengths(seq):
    out = []
    for item in seq:
        if out and out[-1][0] == item:
            out[-1][1] += 1
        else:
            out.append([item, 1])
    return out
`;
}

function testSource(k: number): string {
  const lines = [`from lib.m${k} import chunked, digit_sum, primes_below, run_lengths, windows`, ""];
  for (let i = 0; i < TESTS_PER_MODULE; i++) {
    const n = 300 + 37 * i;
    switch (i % 5) {
      case 0:
        lines.push(
          `def test_digit_sum_${i}():\n    assert sum(digit_sum(x) for x in range(${n * 4})) == sum(sum(map(int, str(x))) for x in range(${n * 4}))\n`,
        );
        break;
      case 1:
        lines.push(
          `def test_primes_${i}():\n    found = primes_below(${n * 3})\n    assert all(all(p % q for q in range(2, p)) for p in found[:60])\n`,
        );
        break;
      case 2:
        lines.push(
          `def test_windows_${i}():\n    seq = list(range(${n}))\n    assert list(windows(seq, 3)) == [tuple(seq[j:j + 3]) for j in range(len(seq) - 2)]\n`,
        );
        break;
      case 3:
        // Every fifth chunked test has a length that is not a multiple of the chunk size.
        lines.push(
          `def test_chunked_${i}():\n    seq = list(range(${i % 10 === 3 ? n - (n % 4) + 1 : n - (n % 4)}))\n    assert sum(chunked(seq, 4), []) == seq\n`,
        );
        break;
      default:
        lines.push(
          `def test_run_lengths_${i}():\n    seq = [x // 3 for x in range(${n * 2})]\n    assert sum(c for _, c in run_lengths(seq)) == len(seq)\n`,
        );
    }
  }
  return lines.join("\n");
}

async function generate(root: string): Promise<void> {
  await mkdir(join(root, "lib"), { recursive: true });
  await mkdir(join(root, "tests"), { recursive: true });
  await writeFile(join(root, "lib", "__init__.py"), "");
  await writeFile(join(root, "pytest.ini"), "[pytest]\ntestpaths = tests\n");
  for (let k = 0; k < MODULES; k++) {
    await writeFile(join(root, "lib", `m${k}.py`), moduleSource(k));
    await writeFile(join(root, "tests", `test_m${k}.py`), testSource(k));
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function measure(label: string, dir: string, full: boolean): Promise<void> {
  const verifier = localVerifier(pytestRunner([], "bench"), SANDBOX);
  const plain = await verifier.run(dir, { kind: "all" });
  const failing = plain.tests.filter((t) => t.status === "fail" || t.status === "error").map((t) => t.id);
  const passed = plain.tests.filter((t) => t.status === "pass").length;
  process.stdout.write(
    `${label}: ${plain.tests.length} tests (${passed} passed, ${failing.length} failing), plain suite ${seconds(plain.run.durationMs)}\n`,
  );
  if (failing.length === 0) throw new Error(`${label}: no failing test to localise (${plain.run.output.slice(-400)})`);
  const started = performance.now();
  const durations = new Map(plain.tests.map((t) => [t.id, t.durationMs] as const));
  const focused = await pythonSpectra(dir, [], { ...SANDBOX, failing, durations });
  const focusedMs = performance.now() - started;
  const top = ochiai(focused.spectra, (file) => !file.startsWith("tests/"))[0];
  process.stdout.write(
    `  localisation (failing traced, the rest inside their functions): ${seconds(focusedMs)}, ${(focusedMs / plain.run.durationMs).toFixed(2)} × plain; top line ${top ? `${top.file}:${top.line} (${top.score.toFixed(2)})` : "none"}; ${focused.untraced.length} heaviest passing tests left untraced${focused.untraced.length > 0 ? ` (${focused.untraced.slice(0, 4).join(", ")}${focused.untraced.length > 4 ? ", …" : ""})` : ""}\n`,
  );
  if (!full) return;
  const again = performance.now();
  const all = await pythonSpectra(dir, [], SANDBOX);
  const allMs = performance.now() - again;
  const topAll = ochiai(all.spectra, (file) => !file.startsWith("tests/"))[0];
  process.stdout.write(
    `  full line trace of every test (before):                        ${seconds(allMs)}, ${(allMs / plain.run.durationMs).toFixed(2)} × plain; top line ${topAll ? `${topAll.file}:${topAll.line} (${topAll.score.toFixed(2)})` : "none"}\n`,
  );
}

const root = await mkdtemp(join(tmpdir(), "autogen-bench-localise-"));
try {
  await generate(root);
  await measure(`generated (${MODULES * TESTS_PER_MODULE} tests)`, root, true);
  const given = process.argv[2];
  if (given) await measure(given, resolve(given), process.argv.includes("--full"));
} finally {
  await rm(root, { recursive: true, force: true });
}
