// The files that share a worker process (test/support/shared-worker-files.ts): each exists, and
// none is of a kind that must stay isolated. A shared worker keeps a module's state, a mock and
// nock's interceptors from one file to the next.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SHARED_WORKER_FILES } from "./support/shared-worker-files.ts";

const ROOT = join(import.meta.dirname, "..");
/** What a shared file may not do, and why. */
const ISOLATED_KINDS: Array<[RegExp, string]> = [
  [/\bvi\.(mock|doMock)\(/, "mocks a module (the mock would outlive the file)"],
  [/\b(createServer|startServer)\(|\.listen\(|\bnet\.connect\(|new Socket\(/, "opens real sockets or servers"],
  [/\bvi\.stub(Env|Global)\(/, "stubs the environment or a global"],
];

describe("files that share a worker process", () => {
  it("exist, are test files, and are named once", () => {
    expect(SHARED_WORKER_FILES.length).toBeGreaterThan(0);
    expect(new Set(SHARED_WORKER_FILES).size).toBe(SHARED_WORKER_FILES.length);
    for (const file of SHARED_WORKER_FILES) {
      expect(file, file).toMatch(/^test\/.+\.test\.ts$/);
      expect(existsSync(join(ROOT, file)), file).toBe(true);
    }
  });

  it("include no file that mocks a module, opens sockets or stubs the environment", () => {
    const found = SHARED_WORKER_FILES.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), "utf8");
      return ISOLATED_KINDS.filter(([pattern]) => pattern.test(text)).map(([, why]) => `${file} ${why}`);
    });
    expect(found).toEqual([]);
  });

  it("would catch each kind (the patterns match what they name)", () => {
    const samples = ['vi.mock("../x.ts")', "server.listen(0)", "net.connect(port)", 'vi.stubEnv("A", "b")'];
    for (const sample of samples)
      expect(
        ISOLATED_KINDS.some(([p]) => p.test(sample)),
        sample,
      ).toBe(true);
  });
});
