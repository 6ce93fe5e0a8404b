// Test reports inside an Actions artifact (a zip): every JUnit XML file in it, read with
// fflate within size limits (a zip bomb stops at the cap), parsed by the verification
// layer's own JUnit parser.
import { unzipSync } from "fflate";
import { JunitParseError, parseJunit } from "../verify/parsers/parse-junit.ts";
import type { TestCaseResult } from "../verify/test-report.ts";

export class ArtifactError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArtifactError";
  }
}

const MAX_FILE_BYTES = 32 * 1024 * 1024;

/** JUnit results from the XML files of a zip; `problems` names files that were skipped and why. */
export function junitFromZip(zip: Uint8Array, options: { root?: string } = {}): { tests: TestCaseResult[]; files: string[]; problems: string[] } {
  const problems: string[] = [];
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip, {
      filter: (file) => {
        if (!/\.xml$/i.test(file.name)) return false;
        if (file.originalSize > MAX_FILE_BYTES) {
          problems.push(`${file.name}: ${file.originalSize} bytes, over the ${MAX_FILE_BYTES}-byte limit`);
          return false;
        }
        return true;
      },
    });
  } catch (error) {
    throw new ArtifactError(`the artifact is not a readable zip: ${(error as Error).message}`);
  }
  const tests: TestCaseResult[] = [];
  const files: string[] = [];
  for (const [name, bytes] of Object.entries(entries).sort(([a], [b]) => a.localeCompare(b))) {
    try {
      tests.push(...parseJunit(new TextDecoder().decode(bytes), options));
      files.push(name);
    } catch (error) {
      if (!(error instanceof JunitParseError)) throw error;
      problems.push(`${name}: ${error.message}`);
    }
  }
  return { tests, files, problems };
}
