// The layout as bubblewrap arguments: every namespace unshared (the network too unless
// asked; bwrap brings up loopback in its new network namespace), no capabilities, an
// unprivileged uid, a new session (no terminal to inject into), and the sandbox dies
// with the bot.
import type { SandboxLayout } from "./sandbox-layout.ts";

export const SANDBOX_UID = 65534;

export function bwrapArgv(
  layout: SandboxLayout,
  options: { cwd: string; network: boolean },
  command: string[],
): string[] {
  const mounts = layout.ops.flatMap((op) => {
    switch (op.kind) {
      case "tmpfs":
        return ["--size", String(op.bytes), "--tmpfs", op.path];
      case "hide-file":
        return ["--ro-bind", "/dev/null", op.path];
      case "ro":
        return ["--ro-bind", op.path, op.path];
      case "rw":
        return ["--bind", op.path, op.path];
    }
  });
  return [
    "bwrap",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    ...mounts,
    "--unshare-all",
    ...(options.network ? ["--share-net"] : []),
    "--unshare-user",
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--hostname",
    "autogen-sandbox",
    "--die-with-parent",
    "--new-session",
    "--chdir",
    options.cwd,
    "--",
    ...command,
  ];
}
