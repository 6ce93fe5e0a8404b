// Each test file ends with the network as a process that never loaded nock has it (nockOff in
// test/support/nock-on.ts). A worker process runs several files (vitest.config.ts), and a file
// after one that used nock must not find its requests intercepted: nock reads a request's whole
// body before it lets the request go out, so a client that sends its body slowly would never
// reach the server. nock is loaded here only when the file ends, so a file that does not use it
// never runs with it on. Registered as a vitest setup file (per file).
import { afterAll } from "vitest";

// Registered before the file's own hooks, so it runs after them (they run in reverse order).
afterAll(async () => (await import("./nock-on.ts")).nockOff());
