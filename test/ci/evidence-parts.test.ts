// The pieces of CI evidence: job logs in the runner's format, infrastructure failures,
// JUnit reports inside artifact zips (made with the real `zip`), pytest's default JUnit.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ArtifactError, reportsFromZip } from "../../src/ci/artifact-reports.ts";
import { recogniseInfraFailure } from "../../src/ci/infra-failure.ts";
import { cleanJobLog, errorLines } from "../../src/ci/job-log.ts";
import { parseJsonReport } from "../../src/verify/parsers/parse-json-report.ts";
import { parseJunit } from "../../src/verify/parsers/parse-junit.ts";

// The shape of a real Actions job log (as in the cidiff breakage dataset): BOM, timestamps with 7 fraction digits.
const LOG = [
  "\uFEFF2022-05-30T09:10:31.1584995Z Requested labels: ubuntu-latest",
  "2022-05-30T09:10:41.3367743Z ##[group]Operating System",
  "2022-05-30T09:10:41.3368353Z Ubuntu",
  "2022-05-30T09:10:41.3369224Z ##[endgroup]",
  "2022-05-30T09:11:02.9000000Z \u001b[31mFAILED tests/test_cart.py::test_total - assert 35 == 25\u001b[0m",
  "2022-05-30T09:11:03.2745138Z ##[error]Process completed with exit code 1.",
].join("\r\n");

describe("job logs", () => {
  it("drop the BOM, timestamps and colour codes, and keep the runner's error lines", () => {
    const clean = cleanJobLog(LOG);
    expect(clean.split("\n")[0]).toBe("Requested labels: ubuntu-latest");
    expect(clean).toContain("\nFAILED tests/test_cart.py::test_total - assert 35 == 25\n");
    expect(clean).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(errorLines(clean)).toEqual(["Process completed with exit code 1."]);
  });
});

describe("infrastructure failures", () => {
  it("are named with the line that shows them", () => {
    expect(
      recogniseInfraFailure(
        "Run npm ci\nnpm ERR! code ECONNRESET\nnpm ERR! network request to https://registry.npmjs.org/vitest failed, reason: socket hang up",
      ),
    ).toMatchObject({ kind: "registry-network" });
    expect(
      recogniseInfraFailure(
        "Collecting numpy\n  ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
      ),
    ).toMatchObject({
      kind: "out-of-disk",
      line: "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
    });
    expect(
      recogniseInfraFailure(
        "##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped.",
      ),
    ).toMatchObject({ kind: "runner-lost" });
    expect(recogniseInfraFailure("pip: Could not resolve host: files.pythonhosted.org")).toMatchObject({
      kind: "registry-network",
    });
  });

  it("a download rate is not an HTTP status (a real Maven line), and the flagged line is numbered", () => {
    expect(
      recogniseInfraFailure(
        "Downloaded from central: https://repo.maven.apache.org/maven2/fr/inria/gforge/spoon/spoon-core/9.1.0-beta-4/spoon-core-9.1.0-beta-4.pom (11 kB at 504 kB/s)",
      ),
    ).toBeUndefined();
    expect(
      recogniseInfraFailure(
        "Cloning\nfatal: unable to access 'https://github.com/KTH/spork.git/': The requested URL returned error: 503",
      ),
    ).toMatchObject({ kind: "registry-network", lineNumber: 2 });
  });

  it("a failing test mentioning a network error in the code under test is not infrastructure", () => {
    expect(
      recogniseInfraFailure(
        "FAILED tests/test_client.py::test_retry - ConnectionError: ECONNRESET from localhost:8080\n##[error]Process completed with exit code 1.",
      ),
    ).toBeUndefined();
  });
});

describe("report artifacts", () => {
  const JUNIT =
    '<?xml version="1.0"?><testsuites><testsuite name="pytest"><testcase classname="tests.test_cart" name="test_total"><failure message="assert 35 == 25">E assert 35 == 25</failure></testcase><testcase classname="tests.test_cart.TestBulk" name="test_many"/></testsuite></testsuites>';

  it("reads every JUnit file of a zip made by `zip`, skipping other files", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-zip-"));
    await writeFile(join(dir, "junit.xml"), JUNIT);
    await writeFile(join(dir, "coverage.txt"), "not a report");
    await writeFile(join(dir, "broken.xml"), "<testsuite><testcase");
    execFileSync("zip", ["-q", "report.zip", "junit.xml", "coverage.txt", "broken.xml"], { cwd: dir });
    const read = reportsFromZip(new Uint8Array(await readFile(join(dir, "report.zip"))));
    expect(read.files).toEqual(["junit.xml"]);
    expect(read.tests.map((t) => [t.id, t.status])).toEqual([
      ["tests/test_cart.py::test_total", "fail"],
      ["tests/test_cart.py::TestBulk::test_many", "pass"],
    ]);
    expect(read.problems).toEqual([expect.stringMatching(/^broken\.xml: malformed JUnit XML/)]);
  });

  it("a body that is not a zip is a clear error", () => {
    expect(() => reportsFromZip(new TextEncoder().encode("<html>expired</html>"))).toThrow(ArtifactError);
  });

  it("pytest's default report (no file attribute) still gives node ids pytest accepts", () => {
    expect(parseJunit(JUNIT).map((t) => t.id)).toEqual([
      "tests/test_cart.py::test_total",
      "tests/test_cart.py::TestBulk::test_many",
    ]);
  });
});

describe("Jest / Vitest JSON reports", () => {
  it("vitest's real JSON report gives the ids the JUnit parser gives", async () => {
    const text = await readFile(new URL("../fixtures/reports/vitest-report.json", import.meta.url), "utf8");
    const fromJson = parseJsonReport(text, { root: "/tmp/jscap" });
    const fromJunit = parseJunit(
      await readFile(new URL("../fixtures/reports/vitest-junit.xml", import.meta.url), "utf8"),
    );
    expect(fromJson.map((t) => [t.id, t.status])).toEqual(fromJunit.map((t) => [t.id, t.status]));
    expect(fromJson[4]?.message).toMatch(/division by zero/);
  });

  it("paths of a checkout on an Actions runner become repository-relative", () => {
    const report = JSON.stringify({
      testResults: [
        {
          name: "/home/runner/work/shop/shop/test/cart.test.js",
          status: "failed",
          assertionResults: [
            {
              ancestorTitles: ["cart"],
              title: "totals",
              status: "failed",
              failureMessages: ["AssertionError: 35 !== 25"],
            },
          ],
        },
      ],
    });
    expect(parseJsonReport(report)).toEqual([
      expect.objectContaining({
        id: "test/cart.test.js > cart > totals",
        status: "fail",
        message: "AssertionError: 35 !== 25",
      }),
    ]);
  });

  it("a file that failed to load is one error; other JSON is named as not a report", async () => {
    expect(
      parseJsonReport(
        JSON.stringify({
          testResults: [
            {
              name: "test/broken.test.js",
              status: "failed",
              message: "SyntaxError: Unexpected token",
              assertionResults: [],
            },
          ],
        }),
      ),
    ).toEqual([
      expect.objectContaining({ id: "test/broken.test.js", status: "error", message: "SyntaxError: Unexpected token" }),
    ]);
    const dir = await mkdtemp(join(tmpdir(), "autogen-zip-"));
    await writeFile(
      join(dir, "vitest.json"),
      await readFile(new URL("../fixtures/reports/vitest-report.json", import.meta.url)),
    );
    await writeFile(join(dir, "package.json"), '{"name":"x"}');
    execFileSync("zip", ["-q", "report.zip", "vitest.json", "package.json"], { cwd: dir });
    const read = reportsFromZip(new Uint8Array(await readFile(join(dir, "report.zip"))), { root: "/tmp/jscap" });
    expect(read.files).toEqual(["vitest.json"]);
    expect(read.tests).toHaveLength(6);
    expect(read.problems).toEqual([
      "package.json: not a Jest or Vitest JSON report (no testResults with assertionResults)",
    ]);
  });
});
