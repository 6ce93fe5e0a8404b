// Each test file gets its own temporary folder: $TMPDIR points into a fresh
// `<tmp>/autogen-testfile-XXXXXX` while the file runs (Node's tmpdir() reads it, and so do
// the children that inherit the environment, the product's sandboxed runs included), and
// the folder goes when the file ends, with every repository, fixture and copy the tests and
// the product made in it. A suite run then leaves nothing behind, whichever helper or test
// made a folder and however the test ended. Registered as a vitest setup file (per file).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const outer = process.env.TMPDIR;
const own = mkdtempSync(join(tmpdir(), "autogen-testfile-"));
process.env.TMPDIR = own;

// Registered first, so it runs after the file's own afterAll hooks (they run in reverse order).
afterAll(() => {
  if (outer === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outer;
  // A test run killed a moment ago may still be closing files in it.
  rmSync(own, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
});
