// nock with its interception on, for a test file that uses it, and off again when the file ends.
// A process of its own per file would have it on from the import; a worker process that runs
// several files (vitest.config.ts) imports nock once, and each file ends with it off
// (test/support/per-file-network.ts).
import nock from "nock";

export function nockOn(): typeof nock {
  if (!nock.isActive()) nock.activate();
  return nock;
}

/** The network as a process that never loaded nock has it: no interceptors or listeners, net connect allowed, interception off. */
export function nockOff(): void {
  nock.cleanAll();
  nock.enableNetConnect();
  nock.emitter.removeAllListeners("no match");
  nock.restore();
}
