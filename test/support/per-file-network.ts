// Each test file ends with the network as a process that never loaded nock has it: no
// interceptors, no listeners, net connect allowed and interception off. A worker process runs
// several files (vitest.config.ts), and a file after one that used nock must not find its
// requests intercepted (an intercepted request is buffered whole before it goes out, so a client
// that sends its body slowly never reaches the server). A file that uses nock turns it on again
// (test/support/nock-on.ts). Registered as a vitest setup file (per file).
import { afterAll } from "vitest";

// Registered before the file's own hooks, so it runs after them (they run in reverse order).
afterAll(async () => {
  const { default: nock } = await import("nock");
  nock.cleanAll();
  nock.enableNetConnect();
  nock.emitter.removeAllListeners("no match");
  nock.restore();
});
