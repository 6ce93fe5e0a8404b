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

/** How long the probe's `echo ok` may take: far more than it needs, since a busy machine can take seconds to set up namespaces. */
const PROBE_TIMEOUT_MS = 60_000;

type ProbeResult = "works" | "fails" | "timed-out";

async function works(argv: string[]): Promise<ProbeResult> {
  const [file, ...args] = argv as [string, ...string[]];
  const result = await execa(file, args, {
    timeout: PROBE_TIMEOUT_MS,
    forceKillAfterDelay: 1000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    extendEnv: false,
    stdin: "ignore",
    reject: false,
  });
  if (result.timedOut) return "timed-out";
  return !result.failed && result.stdout.trim() === "ok" ? "works" : "fails";
}

async function probe(kind: "bwrap" | "unshare"): Promise<ProbeResult> {
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
  const choice = (probed ??= choose());
  // Only a sandbox found is kept: a refusal (a probe timed out on a busy machine, a tool installed since) is probed again next time.
  void choice.then((c) => {
    if ("refused" in c && probed === choice) probed = undefined;
  });
  return choice;
}

async function choose(): Promise<IsolationChoice> {
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
  const slow = (kind: string) =>
    `${kind}'s probe (\`echo ok\` in the sandbox) did not finish within ${PROBE_TIMEOUT_MS / 1000} s: the machine may be overloaded; the next job probes again`;
  if (forced === "bwrap" || forced === "unshare") {
    const result = await probe(forced);
    if (result === "works") return { isolation: forced };
    return {
      refused:
        result === "timed-out"
          ? `AUTOGEN_ISOLATION=${forced}, but ${slow(forced)}`
          : `AUTOGEN_ISOLATION=${forced}, but ${forced === "bwrap" ? "bubblewrap (bwrap)" : "unshare"} does not work on this host (not installed, or namespaces are not allowed here)`,
    };
  }
  const bwrap = await probe("bwrap");
  if (bwrap === "works") return { isolation: "bwrap" };
  const unshare = await probe("unshare");
  if (unshare === "works") return { isolation: "unshare" };
  if (bwrap === "timed-out" || unshare === "timed-out")
    return { refused: `no sandbox could be confirmed: ${slow(bwrap === "timed-out" ? "bubblewrap" : "unshare")}` };
  return {
    refused:
      "no sandbox is available to run the repository's tests: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) or allow unprivileged user namespaces; AUTOGEN_ISOLATION=none runs them unsandboxed, which only makes sense for your own trusted code",
  };
}

/** For tests: forget the probe so a changed AUTOGEN_ISOLATION is seen. */
export function resetIsolationProbe(): void {
  probed = undefined;
}
