// What a sandboxed run left where the bot expects its report or coverage trace: a link to a
// host file, a hard link, a FIFO, a device, an oversize file. Each reads as absent; a
// real report reads whole.
import { execFileSync } from "node:child_process";
import { chmodSync, linkSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRunOutput } from "../../src/verify/read-run-output.ts";

const CANARY = "RTCANARY-run-output-host-file";

function dirs(): { out: string; secret: string } {
  const base = mkdtempSync(join(tmpdir(), "autogen-runout-"));
  const secret = join(base, "secret.txt");
  writeFileSync(secret, `${CANARY}\n`);
  chmodSync(secret, 0o600);
  const out = join(base, "out");
  execFileSync("mkdir", [out]);
  return { out, secret };
}

describe("readRunOutput", () => {
  it("reads a regular report whole", async () => {
    const { out } = dirs();
    writeFileSync(join(out, "junit.xml"), "<testsuite/>\n");
    expect(await readRunOutput(join(out, "junit.xml"), 1024)).toBe("<testsuite/>\n");
  });

  it("a link, a hard link, a FIFO, /dev/zero as a device node and an oversize file all read as absent, none blocking", async () => {
    const { out, secret } = dirs();
    symlinkSync(secret, join(out, "link.xml"));
    symlinkSync("/dev/zero", join(out, "zero-link.xml"));
    linkSync(secret, join(out, "hard.xml"));
    execFileSync("mkfifo", [join(out, "fifo.xml")]);
    execFileSync("mknod", [join(out, "zero.xml"), "c", "1", "5"]);
    writeFileSync(join(out, "big.xml"), "x".repeat(2048));
    for (const name of ["link.xml", "zero-link.xml", "hard.xml", "fifo.xml", "zero.xml", "big.xml", "missing.xml"]) {
      expect(await readRunOutput(join(out, name), 1024), name).toBeUndefined();
    }
  });
});
