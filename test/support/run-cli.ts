// Runs `autogen` in-process with captured output, or as a real child process.
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export async function runCli(argv: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: options.env ?? {},
    cwd: options.cwd ?? ROOT,
    isTty: false,
  });
  return { code, stdout, stderr };
}

export function spawnCli(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [`${ROOT}bin/autogen.js`, ...argv],
      // The test file's own temporary folder (test/support/per-file-tmpdir.ts), unless the test names one.
      { env: { PATH: process.env.PATH, TMPDIR: tmpdir(), ...env }, timeout: 150_000 },
      (error, stdout, stderr) => {
        const code = error && typeof error.code === "number" ? error.code : error ? 1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
