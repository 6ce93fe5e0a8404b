// The sandbox's view of the host, as a list of mounts: what is hidden, what stays visible.
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSandboxed } from "../../src/verify/sandbox/run-sandboxed.ts";
import { sandboxLayout } from "../../src/verify/sandbox/sandbox-layout.ts";

describe("sandboxLayout", () => {
  it("keeps a PATH directory under the host's /tmp visible (the bot installed in a CI checkout there), read-only", async () => {
    const install = await realpath(await mkdtemp(join(tmpdir(), "autogen-install-")));
    const bin = join(install, "bin");
    await mkdir(bin);
    const workspace = await mkdtemp(join(tmpdir(), "autogen-ws-"));
    const layout = sandboxLayout({ workspace, path: `${bin}:/usr/bin:/bin`, env: {} });
    expect(layout.ops).toContainEqual({ kind: "ro", path: bin });
    expect(layout.ops).not.toContainEqual({ kind: "ro", path: install });
    // And for real: a program in that directory runs in the sandbox; its sibling directory stays hidden.
    await writeFile(join(bin, "hello"), "#!/bin/sh\necho hello from the install\n", { mode: 0o755 });
    await mkdir(join(install, "secrets"));
    await writeFile(join(install, "secrets", "key"), "do not read");
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? "/usr/bin:/bin"}`;
    const result = await runSandboxed(["hello"], { cwd: workspace, timeoutMs: 10_000 }).finally(
      () => (process.env.PATH = path),
    );
    expect(result.output).toContain("hello from the install");
    const peek = await runSandboxed(["cat", join(install, "secrets", "key")], { cwd: workspace, timeoutMs: 10_000 });
    expect(peek.output).not.toContain("do not read");
  });

  it("shows rustup's toolchains beside a ~/.cargo/bin on PATH (its cargo is a rustup proxy), read-only, and nothing else of that home", async () => {
    const home = await realpath(await mkdtemp(join(tmpdir(), "autogen-home-")));
    await mkdir(join(home, ".cargo", "bin"), { recursive: true });
    await mkdir(join(home, ".rustup", "toolchains"), { recursive: true });
    await mkdir(join(home, ".ssh"));
    const workspace = await mkdtemp(join(tmpdir(), "autogen-ws-"));
    const layout = sandboxLayout({
      workspace,
      path: `${join(home, ".cargo", "bin")}:/usr/bin:/bin`,
      env: { HOME: home },
    });
    expect(layout.ops).toContainEqual({ kind: "ro", path: join(home, ".cargo") });
    expect(layout.ops).toContainEqual({ kind: "ro", path: join(home, ".rustup") });
    expect(layout.ops).not.toContainEqual({ kind: "ro", path: join(home, ".ssh") });
    expect(layout.ops).toContainEqual({ kind: "tmpfs", path: home, bytes: 1024 * 1024 });
  });
});
