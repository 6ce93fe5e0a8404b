// The layout through unshare(1) when bubblewrap is missing: new mount, PID, IPC, UTS
// and (unless asked) network namespaces, with our own init (resources/sandbox/
// unshare-init.mjs) building the same file-system view as bubblewrap and dropping every
// capability before the command runs. setpriv's parent-death signal ends the whole
// namespace if the bot dies.
import { fileURLToPath } from "node:url";
import type { SandboxLayout } from "./sandbox-layout.ts";

export const UNSHARE_INIT = fileURLToPath(new URL("../../../resources/sandbox/unshare-init.mjs", import.meta.url));

export function unshareArgv(
  layout: SandboxLayout,
  options: { cwd: string; network: boolean; stage: string },
  command: string[],
): string[] {
  const spec = JSON.stringify({ stage: options.stage, cwd: options.cwd, network: options.network, ops: layout.ops });
  return [
    "setpriv",
    "--pdeathsig",
    "KILL",
    "--",
    "unshare",
    ...(process.getuid?.() === 0 ? [] : ["--map-root-user"]),
    "--mount",
    "--propagation",
    "private",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "--ipc",
    "--uts",
    ...(options.network ? [] : ["--net"]),
    "--",
    process.execPath,
    UNSHARE_INIT,
    spec,
    "--",
    ...command,
  ];
}
