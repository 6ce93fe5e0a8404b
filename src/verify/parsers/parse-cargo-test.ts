// `cargo test` output (libtest's console format): one `test NAME ... ok|FAILED|ignored`
// line per test of every test binary (unit, integration, doc tests), and for each failure
// a `---- NAME stdout ----` section with its panic message.
import { stripVTControlCharacters } from "node:util";
import type { TestCaseResult } from "../test-report.ts";

const RESULT = /^test (.+?) \.\.\. (ok|FAILED|ignored|bench)(?:, .*)?$/;
const RUNNING = /^\s*(?:Running (?:unittests )?(\S+)|Doc-tests (\S+))/;
const SECTION = /^---- (.+?) stdout ----$/;

export function parseCargoTest(output: string): TestCaseResult[] {
  const lines = stripVTControlCharacters(output).split("\n");
  const results: TestCaseResult[] = [];
  const messages = new Map<string, string[]>();
  let file: string | undefined;
  let section: string | undefined;
  for (const line of lines) {
    const running = RUNNING.exec(line);
    if (running) {
      file = running[1] ?? `doc-tests ${running[2] ?? ""}`;
      section = undefined;
      continue;
    }
    const result = RESULT.exec(line);
    if (result) {
      const [, id, word] = result as unknown as [string, string, string];
      if (word === "bench") continue;
      results.push({
        id,
        name: id.split("::").at(-1) ?? id,
        file,
        status: word === "ok" ? "pass" : word === "FAILED" ? "fail" : "skip",
      });
      continue;
    }
    const start = SECTION.exec(line);
    if (start) {
      section = start[1];
      continue;
    }
    if (section !== undefined) {
      if (/^(failures:|test result:)/.test(line)) section = undefined;
      else if (line.trim() !== "" && !/^note: run with `RUST_BACKTRACE/.test(line))
        messages.set(section, [...(messages.get(section) ?? []), line]);
    }
  }
  for (const test of results) {
    const message = test.status === "fail" ? messages.get(test.id) : undefined;
    if (message?.length) {
      test.details = message.join("\n");
      // The panic's own words follow its `thread '…' panicked at file:line:` line.
      const panicked = message.findIndex((l) => /^thread '.*'(?: \(\d+\))? panicked at/.test(l));
      test.message = (panicked >= 0 ? message[panicked + 1] : undefined) ?? message[0];
    }
  }
  return results;
}
