// Test reports inside an Actions artifact (a zip): every JUnit XML file and every Jest /
// Vitest JSON report in it, read with fflate within size limits (a zip bomb stops at the
// cap), parsed by the verification layer's own parsers.
import { unzipSync } from "fflate";
import { JsonReportError, parseJsonReport } from "../verify/parsers/parse-json-report.ts";
import { JunitParseError, parseJunit } from "../verify/parsers/parse-junit.ts";
import type { TestCaseResult } from "../verify/test-report.ts";

export class ArtifactError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArtifactError";
  }
}

const MAX_FILE_BYTES = 32 * 1024 * 1024;

/** Results from the XML (JUnit) and JSON (Jest/Vitest) files of a zip; `problems` names files that were skipped and why. */
export function reportsFromZip(
  zip: Uint8Array,
  options: { root?: string } = {},
): { tests: TestCaseResult[]; files: string[]; problems: string[] } {
  const problems: string[] = [];
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip, {
      filter: (file) => {
        if (!/\.(xml|json)$/i.test(file.name)) return false;
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
      const text = new TextDecoder().decode(bytes);
      tests.push(...(/\.json$/i.test(name) ? parseJsonReport(text, options) : parseJunit(text, options)));
      files.push(name);
    } catch (error) {
      if (!(error instanceof JunitParseError) && !(error instanceof JsonReportError)) throw error;
      problems.push(`${name}: ${error.message}`);
    }
  }
  return { tests, files, problems };
}
