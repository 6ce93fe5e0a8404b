// What the report says about the dependencies: what was installed, by which command,
// from cache or fresh (or the user's checkout), and how long it took.
import { describe, expect, it } from "vitest";
import { emptyOutcome } from "../../src/engine/task.ts";
import { renderReport } from "../../src/report/render-report.ts";
import type { InstallSummary } from "../../src/verify/install/run-install.ts";

const base: InstallSummary = {
  manager: "npm",
  lockfile: "package-lock.json",
  command: "npm ci --offline",
  source: "fresh",
  seconds: 12.34,
  network: false,
  ok: true,
};

function report(dependencies: InstallSummary | undefined): string {
  const outcome = emptyOutcome("template");
  outcome.dependencies = dependencies;
  return renderReport(outcome, { title: "autogen: x" });
}

describe("the report's dependency line", () => {
  it("fresh, cached for later jobs", () => {
    expect(report(base)).toContain(
      "Dependencies (npm, from `package-lock.json`): installed fresh with `npm ci --offline` in the sandbox (without network) in 12.3 s; cached for later jobs.",
    );
  });

  it("fresh with network, not cached, and why", () => {
    expect(
      report({ ...base, command: "npm ci", network: true, notCached: "node_modules/x links outside node_modules" }),
    ).toContain(
      "installed fresh with `npm ci` in the sandbox (with network) in 12.3 s; not cached (node_modules/x links outside node_modules).",
    );
  });

  it("from cache", () => {
    expect(report({ ...base, source: "cache", seconds: 0.04 })).toContain(
      "Dependencies (npm, from `package-lock.json`): from cache (installed by an earlier job with `npm ci --offline` from the same lockfile), ready in 0.0 s.",
    );
  });

  it("the user's checkout (CLI)", () => {
    expect(report({ ...base, source: "checkout", command: "", seconds: 0 })).toContain(
      "your checkout's own, read-only to the tests (its lockfile matches the commit's).",
    );
  });

  it("a failed install, and nothing when no install ran", () => {
    expect(
      report({
        ...base,
        ok: false,
        manager: "pip",
        lockfile: "requirements.txt",
        command: "python3 -m pip install -r requirements.txt",
      }),
    ).toContain(
      "Dependencies (pip, from `requirements.txt`): the install `python3 -m pip install -r requirements.txt` failed after 12.3 s (without network); the tests ran without them.",
    );
    expect(report(undefined)).not.toContain("Dependencies");
  });
});
