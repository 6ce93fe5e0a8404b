// The App tests' network: nothing leaves the machine but loopback (the Probot server,
// git over file paths); every request some interceptor should have answered is noted,
// and so is every scripted model answer left unused.
import nock from "nock";
import { nockOn } from "./nock-on.ts";
import { isFakeGitHubMock } from "./fake-github.ts";

const LOOPBACK = /^(127\.0\.0\.1|localhost)(:\d+)?$/;

export function networkGuard() {
  const unmatched: string[] = [];
  const onNoMatch = (req: { url: string }) => {
    if (!/^http:\/\/(127\.0\.0\.1|localhost)/.test(req.url)) unmatched.push(req.url);
  };
  return {
    start(): void {
      nockOn();
      nock.disableNetConnect();
      nock.enableNetConnect(LOOPBACK);
      nock.emitter.on("no match", onNoMatch);
    },
    /** Removes every interceptor; returns the requests nothing answered and the mocks never used (the fake GitHub's own aside). */
    stop(): { unmatched: string[]; unused: string[] } {
      nock.emitter.removeListener("no match", onNoMatch);
      const unused = nock.pendingMocks().filter((m) => !isFakeGitHubMock(m));
      nock.cleanAll();
      nock.enableNetConnect();
      return { unmatched: unmatched.splice(0), unused };
    },
  };
}
