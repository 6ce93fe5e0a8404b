// What bench:ingress's phases share: the signed `issues.labeled` deliveries they send, one
// POST of a delivery, `autogen-bot serve` started as a child process of its own (so the
// server's memory and event loop are its own, as in production), and that process's memory.
import { createHmac } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";

export function labeledBody(n: number, installation = 99): string {
  return JSON.stringify({
    action: "labeled",
    issue: { number: n + 1, title: `Bug ${n}`, body: "steps", user: { login: "reporter" } },
    label: { name: "autogen" },
    repository: { name: "shop", full_name: "octo-org/shop", default_branch: "main", owner: { login: "octo-org" } },
    sender: { login: "maintainer", id: 7, type: "User" },
    installation: { id: installation },
  });
}

export const signature = (secret: string, body: string | Buffer) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

/** POSTs one delivery; 0 when the connection failed (a killed server). */
export async function postDelivery(url: URL, secret: string, id: string, body: string): Promise<number> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issues",
        "x-github-delivery": id,
        "x-hub-signature-256": signature(secret, body),
      },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** A process's resident memory now and its peak since the last reset, in bytes (Linux /proc). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** Starts a new peak-RSS window for the process (writing 5 to clear_refs resets VmHWM to VmRSS). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}
