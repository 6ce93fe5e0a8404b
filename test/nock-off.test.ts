// A file after one that used nock, in the same worker process (vitest.config.ts), finds the
// network as a process that never loaded nock has it: a loopback server sees a request's body as
// it is sent, not once the client has finished it.
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { nockOff, nockOn } from "./support/nock-on.ts";

const server = createServer((req, res) =>
  req.once("data", (chunk: Buffer) => res.end(`first chunk: ${chunk.toString()}`)),
);
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Sends the first part of a body and waits for the answer without ending the request (undefined after 5 s). */
async function answerBeforeTheBodyEnds(): Promise<string | undefined> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, method: "POST", path: "/" }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve(text));
    });
    req.on("error", () => resolve(undefined));
    req.write("drip");
    setTimeout(() => {
      req.destroy();
      resolve(undefined);
    }, 5_000).unref();
  });
}

describe("the network after a file that used nock", () => {
  it("has no interceptors, no listeners, net connect allowed and interception off", async () => {
    const nock = nockOn();
    nock.disableNetConnect();
    nock.enableNetConnect(/^127\.0\.0\.1/);
    nock("https://api.example.test").get("/x").reply(200, "mocked");
    nock.emitter.on("no match", () => undefined);

    nockOff();

    expect(nock.isActive()).toBe(false);
    expect(nock.pendingMocks()).toEqual([]);
    expect(nock.emitter.listenerCount("no match")).toBe(0);
    expect(await answerBeforeTheBodyEnds()).toBe("first chunk: drip");
  });
});
