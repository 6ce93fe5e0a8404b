// Test only: loaded with `node --import` into the GitHub Action's process (a child of the
// test, which cannot see the test's nock), it installs the same fake GitHub as the App
// tests (test/support/fake-github.ts: every request checked against GitHub's REST
// description) from the state file the test wrote, keeps everything but loopback off the
// network, and at exit writes the state, the recorded requests and the problems back.
import { readFileSync, writeFileSync } from "node:fs";
import nock from "nock";
import { fakeGitHub, type FakeGitHubState } from "./fake-github.ts";

export type FakeGitHubResult = {
  state: FakeGitHubState;
  requests: ReturnType<typeof fakeGitHub>["requests"];
  errors: string[];
  unmatched: string[];
};

const statePath = process.env.AUTOGEN_TEST_FAKE_GITHUB_STATE;
const resultPath = process.env.AUTOGEN_TEST_FAKE_GITHUB_RESULT;
if (!statePath || !resultPath)
  throw new Error(
    "fake-github-preload: AUTOGEN_TEST_FAKE_GITHUB_STATE and AUTOGEN_TEST_FAKE_GITHUB_RESULT must be set",
  );

const state = JSON.parse(readFileSync(statePath, "utf8"), (key, value: unknown) =>
  key === "zip" && typeof value === "string" ? Buffer.from(value, "base64") : value,
) as FakeGitHubState;
nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
const unmatched: string[] = [];
nock.emitter.on("no match", (req: { url?: string; href?: string }) => {
  const url = req.url ?? req.href ?? "";
  if (!/^http:\/\/(127\.0\.0\.1|localhost)/.test(url)) unmatched.push(url);
});
const github = fakeGitHub(state);
process.on("exit", () => {
  const result: FakeGitHubResult = { state, requests: github.requests, errors: github.errors, unmatched };
  writeFileSync(
    resultPath,
    JSON.stringify(result, (key, value: unknown) => (key === "zip" ? undefined : value)),
  );
});
