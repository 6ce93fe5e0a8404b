// The sandbox probe: a refusal is not kept for the life of the process (the App runs for
// weeks; a probe that failed once, on a busy machine or before the tool was installed,
// refused every later job), while a sandbox found is probed once.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectIsolation, resetIsolationProbe } from "../../src/verify/sandbox/detect-isolation.ts";

const saved = { path: process.env.PATH, isolation: process.env.AUTOGEN_ISOLATION };

afterEach(() => {
  process.env.PATH = saved.path;
  if (saved.isolation === undefined) delete process.env.AUTOGEN_ISOLATION;
  else process.env.AUTOGEN_ISOLATION = saved.isolation;
  resetIsolationProbe();
});

describe("detectIsolation", () => {
  it("probes again after a refusal: unshare missing from PATH, then found", async () => {
    resetIsolationProbe();
    process.env.AUTOGEN_ISOLATION = "unshare";
    const works = await detectIsolation();
    resetIsolationProbe();
    if (!("isolation" in works)) return void console.warn("unshare does not work on this host: skipped");

    process.env.PATH = mkdtempSync(join(tmpdir(), "autogen-empty-path-"));
    const refused = await detectIsolation();
    expect(refused).toMatchObject({ refused: expect.stringContaining("unshare does not work on this host") });

    process.env.PATH = saved.path;
    // No resetIsolationProbe() here: the bot's next job calls detectIsolation() as it is.
    expect(await detectIsolation()).toEqual({ isolation: "unshare" });
  });

  it("keeps a sandbox found: the second call does not probe (PATH emptied in between changes nothing)", async () => {
    resetIsolationProbe();
    process.env.AUTOGEN_ISOLATION = "unshare";
    const first = await detectIsolation();
    if (!("isolation" in first)) return void console.warn("unshare does not work on this host: skipped");
    process.env.PATH = mkdtempSync(join(tmpdir(), "autogen-empty-path-"));
    expect(await detectIsolation()).toEqual(first);
  });
});
