// A server script started as a child process of its own (it prints its base URL as its
// first line): for tests that kill it and benchmarks that measure it apart.
import { spawn } from "node:child_process";

export type ServerChild = {
  /** The webhook URL. */
  url: URL;
  pid: number;
  /** SIGKILL, and wait for the exit. */
  kill: () => Promise<void>;
  /** SIGTERM (a graceful stop), and wait for the exit. */
  stop: () => Promise<void>;
};

/** Starts a child script that prints its server's base URL on its first line. */
export async function spawnServer(script: string, args: string[]): Promise<ServerChild> {
  const proc = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.trim());
    });
    proc.on("exit", (code) => reject(new Error(`${script} exited (${code}) before it listened`)));
  });
  return {
    url: new URL(`${base}/api/github/webhooks`),
    pid: proc.pid ?? 0,
    kill: async () => void (proc.kill("SIGKILL"), await exited),
    stop: async () => void (proc.kill("SIGTERM"), await exited),
  };
}
