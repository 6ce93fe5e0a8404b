// HTTP mocking discipline (as renovate's test/http-mock.ts): no real network, loopback
// allowed for our own servers; after each test, any unmatched request or unused mock
// fails the test.
import { nockOn } from "./nock-on.ts";
import { afterAll, afterEach, beforeAll, expect } from "vitest";

const LOOPBACK = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

export function useHttpMock(): void {
  const nock = nockOn();
  const unmatched: string[] = [];
  // nock 15 passes the fetch Request; requests to our own loopback servers pass through.
  const onNoMatch = (req: { method: string; url: string }) => {
    const url = new URL(req.url);
    if (LOOPBACK.test(url.host)) return;
    unmatched.push(`${req.method} ${url.origin}${url.pathname}`);
  };
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(LOOPBACK);
    nock.emitter.on("no match", onNoMatch);
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    const missed = unmatched.splice(0);
    nock.cleanAll();
    expect(missed, "requests that no mock matched").toEqual([]);
    expect(pending, "mocks that were never used").toEqual([]);
  });
  afterAll(() => {
    nock.emitter.removeListener("no match", onNoMatch);
    nock.enableNetConnect();
  });
}
