// Which isolation this host offers, strongest first: bubblewrap, then unshare(1) with
// the same mount rules. Probed once by running the real tool with the flags a run uses.
// Running tests with no sandbox at all is never chosen for the operator: it takes
// AUTOGEN_ISOLATION=none, and as root also AUTOGEN_ALLOW_UNSANDBOXED_ROOT=1.
import { execa } from "execa";
import type { Isolation } from "../test-report.ts";
import { bwrapArgv } from "./bwrap-argv.ts";
import { sandboxLayout } from "./sandbox-layout.ts";
import { unshareArgv } from "./unshare-argv.ts";
import { makeTempDir, removeTempDir } from "../../workspace/temp-dirs.ts";

export type IsolationChoice = { isolation: Isolation } | { refused: string };

let probed: Promise<IsolationChoice> | undefined;

async function works(argv: string[]): Promise<boolean> {
  const [file, ...args] = argv as [string, ...string[]];
  const result = await execa(file, args, {
    timeout: 10_000,
    forceKillAfterDelay: 1000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    extendEnv: false,
    stdin: "ignore",
    reject: false,
  });
  return !result.failed && result.stdout.trim() === "ok";
}

async function probe(kind: "bwrap" | "unshare"): Promise<boolean> {
  const dir = await makeTempDir("autogen-probe-");
  const stage = await makeTempDir("autogen-root-");
  try {
    const layout = sandboxLayout({ workspace: dir, env: {} });
    const command = ["/bin/sh", "-c", "echo ok"];
    return await works(
      kind === "bwrap"
        ? bwrapArgv(layout, { cwd: dir, network: false }, command)
        : unshareArgv(layout, { cwd: dir, network: false, stage }, command),
    );
  } finally {
    await removeTempDir(dir);
    await removeTempDir(stage).catch(() => undefined);
  }
}

export function detectIsolation(): Promise<IsolationChoice> {
  probed ??= (async (): Promise<IsolationChoice> => {
    const forced = process.env.AUTOGEN_ISOLATION;
    if (forced === "none") {
      if (process.getuid?.() === 0 && process.env.AUTOGEN_ALLOW_UNSANDBOXED_ROOT !== "1") {
        return {
          refused:
            "refusing to run a repository's tests as root with no sandbox (AUTOGEN_ISOLATION=none): install bubblewrap, run the bot as an ordinary user, or set AUTOGEN_ALLOW_UNSANDBOXED_ROOT=1 if you accept that the tests can do anything root can",
        };
      }
      return { isolation: "none" };
    }
    if (forced === "bwrap" || forced === "unshare") {
      return (await probe(forced))
        ? { isolation: forced }
        : {
            refused: `AUTOGEN_ISOLATION=${forced}, but ${forced === "bwrap" ? "bubblewrap (bwrap)" : "unshare"} does not work on this host (not installed, or namespaces are not allowed here)`,
          };
    }
    if (await probe("bwrap")) return { isolation: "bwrap" };
    if (await probe("unshare")) return { isolation: "unshare" };
    return {
      refused:
        "no sandbox is available to run the repository's tests: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) or allow unprivileged user namespaces; AUTOGEN_ISOLATION=none runs them unsandboxed, which only makes sense for your own trusted code",
    };
  })();
  return probed;
}

/** For tests: forget the probe so a changed AUTOGEN_ISOLATION is seen. */
export function resetIsolationProbe(): void {
  probed = undefined;
}
