// `cargo test` as the repository writes it (its own options kept, `--no-fail-fast` added), results read per test
// from libtest's console lines; a selection is libtest's own exact-name filter after `--`.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
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
    // The sandbox gives the run a home of its own: rustup's proxy (~/.cargo/bin/cargo) must still find its toolchains.
    prepareEnv: (env) => ({ ...env, ...rustupHome() }),
    command: (selection) => {
      // cargo stops at the first test binary with a failure; every test's result is wanted.
      const given = argv.includes("--no-fail-fast")
        ? [...argv]
        : [...argv.slice(0, 2), "--no-fail-fast", ...argv.slice(2)];
      if (selection.kind !== "tests") return given;
      const ids = safeIds(selection.ids);
      return given.includes("--") ? [...given, "--exact", ...ids] : [...given, "--", "--exact", ...ids];
    },
  };
}

/** Where the bot's rustup keeps its toolchains (shown read-only in the sandbox beside ~/.cargo), when it has one. */
function rustupHome(): Record<string, string> {
  const given = process.env.RUSTUP_HOME;
  const home = given && isAbsolute(given) ? given : join(homedir(), ".rustup");
  return existsSync(home) ? { RUSTUP_HOME: home } : {};
}
