// Attribution with real pytest runs on a base and a candidate workspace.
import { describe, expect, it } from "vitest";
import { attributeFailures } from "../../src/verify/attribution.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

// A test that alternates between failing and passing on identical runs (a counter file).
const FLAKY = `import os\n\ndef test_flaky():\n    path = os.path.join(os.path.dirname(__file__), "counter")\n    n = int(open(path).read()) if os.path.exists(path) else 0\n    open(path, "w").write(str(n + 1))\n    assert n % 2 == 1\n`;

const TESTS = {
  "test_lib.py":
    "from lib import double, half, triple\n\ndef test_double():\n    assert double(2) == 4\n\ndef test_half():\n    assert half(4) == 2\n\ndef test_triple():\n    assert triple(1) == 3\n\ndef test_always_broken():\n    assert False\n",
  "test_flaky.py": FLAKY,
};

describe("attributeFailures", () => {
  it("tells fixed, caused-by-change, pre-existing, flaky and passing apart", async () => {
    const base = await writeRepo({
      ...TESTS,
      "lib.py":
        "def double(x):\n    return x * 2\n\ndef half(x):\n    return x / 3\n\ndef triple(x):\n    return x * 3\n",
    });
    const candidate = await writeRepo({
      ...TESTS,
      "lib.py":
        "def double(x):\n    return x + 2 + 1\n\ndef half(x):\n    return x / 2\n\ndef triple(x):\n    return x * 3\n",
    });
    const verifier = localVerifier(pytestRunner([], "test"), { timeoutMs: 30_000, env: PYTEST_ENV });
    const result = await attributeFailures(verifier, { base, candidate }, { kind: "all" }, 2);
    const verdicts = Object.fromEntries(result.tests.map((t) => [t.id, t.verdict]));
    expect(verdicts).toEqual({
      "test_lib.py::test_double": "caused-by-change",
      "test_lib.py::test_half": "fixed",
      "test_lib.py::test_triple": "passing",
      "test_lib.py::test_always_broken": "pre-existing",
      "test_flaky.py::test_flaky": "flaky",
    });
    expect(result.counts).toEqual({ passing: 1, fixed: 1, "caused-by-change": 1, "pre-existing": 1, flaky: 1 });
    expect(result.testRuns).toBe(6);
    expect(result.tests.find((t) => t.id === "test_lib.py::test_half")).toMatchObject({
      base: ["fail", "fail", "fail"],
      candidate: ["pass", "pass", "pass"],
    });
  });

  it("never calls a test fixed when it passed only on a retry", async () => {
    const base = await writeRepo({ "test_flaky.py": FLAKY });
    const candidate = await writeRepo({ "test_flaky.py": FLAKY });
    const verifier = localVerifier(pytestRunner([], "test"), { timeoutMs: 30_000, env: PYTEST_ENV });
    const result = await attributeFailures(verifier, { base, candidate }, { kind: "all" }, 1);
    expect(result.tests).toEqual([
      { id: "test_flaky.py::test_flaky", verdict: "flaky", base: ["fail", "pass"], candidate: ["fail", "pass"] },
    ]);
  });
});
