// `cargo test` as the repository writes it (its own options kept), results read per test
// from libtest's console lines; a selection is libtest's own exact-name filter after `--`.
import { parseCargoTest } from "../parsers/parse-cargo-test.ts";
import { safeIds, type TestRunner } from "./test-runner.ts";

export function cargoRunner(argv: readonly string[], evidence: string): TestRunner {
  return {
    name: "cargo",
    evidence,
    reportFormat: "none",
    pathPrefix: [],
    // A doc test's or an integration test's name can repeat in another test binary: keep the selected ids only.
    selectsByFiltering: true,
    parseConsole: parseCargoTest,
    command: (selection) => {
      if (selection.kind !== "tests") return [...argv];
      const ids = safeIds(selection.ids);
      return argv.includes("--") ? [...argv, "--exact", ...ids] : [...argv, "--", "--exact", ...ids];
    },
  };
}
