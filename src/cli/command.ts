// What every CLI subcommand looks like: a name, a one-line summary, its usage text and
// a run function that returns the process exit code.
export type CliIo = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  isTty: boolean;
};

export type CliCommand = {
  name: string;
  summary: string;
  usage: string;
  run: (args: string[], io: CliIo) => Promise<number>;
};

/** Exit codes, documented in the README: 0 success, 1 the work failed, 2 bad input. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
