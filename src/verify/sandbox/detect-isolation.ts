// Which isolation this host offers, strongest first: bubblewrap, then unshare(1) network
// namespaces, then plain resource limits. Probed once by running the real tool.
import { execFile } from "node:child_process";
import type { Isolation } from "../test-report.ts";

let probed: Promise<Isolation> | undefined;

function works(file: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 5000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } }, (error) => resolve(!error));
  });
}

/** AUTOGEN_ISOLATION (bwrap, unshare, none) lets an operator choose a weaker level, e.g. where namespaces are unavailable. */
export function detectIsolation(): Promise<Isolation> {
  probed ??= (async () => {
    const forced = process.env.AUTOGEN_ISOLATION;
    if (forced === "bwrap" || forced === "unshare" || forced === "none") return forced;
    if (await works("bwrap", ["--dev-bind", "/", "/", "--unshare-net", "--die-with-parent", "--", "true"])) return "bwrap";
    if (await works("unshare", ["--net", "--", "true"])) return "unshare";
    return "none";
  })();
  return probed;
}
