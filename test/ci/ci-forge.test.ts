// The CI port's Octokit backend over HTTP (nock): logs through GitHub's redirect as text
// or as bytes, capped; the dispatch's fallback for servers that do not know
// `return_run_details`; cancelling a run that already finished.
import { Octokit } from "@octokit/rest";
import nock from "nock";
import { nockOn } from "../support/nock-on.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RequestLike } from "../../src/forge/ci-forge.ts";
import { octokitCiForge } from "../../src/forge/octokit-ci-forge.ts";
import { workflowTestIds } from "../../src/ci/actions-verifier.ts";

const API = "https://api.github.com";
const forge = () =>
  octokitCiForge(new Octokit({ auth: "ghs_test", request: { retries: 0 } }).request as unknown as RequestLike);

beforeEach(() => nockOn().disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  expect(pending).toEqual([]);
});

describe("job logs", () => {
  it("follow the redirect, read a plain-text body and stop at the cap", async () => {
    nock(API).get("/repos/o/r/actions/jobs/5/logs").reply(302, "", { location: "https://logs.example.net/5?sig=x" });
    nock("https://logs.example.net")
      .get("/5")
      .query(true)
      .reply(200, "x".repeat(3 * 1024 * 1024), { "content-type": "text/plain" });
    const log = await forge().jobLog("o", "r", 5, 1024 * 1024);
    expect(log.truncated).toBe(true);
    expect(log.text.length).toBe(1024 * 1024);
  });

  it("read a binary body (application/octet-stream) as UTF-8 text", async () => {
    nock(API).get("/repos/o/r/actions/jobs/6/logs").reply(302, "", { location: "https://logs.example.net/6" });
    nock("https://logs.example.net")
      .get("/6")
      .reply(200, Buffer.from("2024-01-01T00:00:00.0000000Z héllo\n"), { "content-type": "application/octet-stream" });
    expect(await forge().jobLog("o", "r", 6, 1024)).toEqual({
      text: "2024-01-01T00:00:00.0000000Z héllo\n",
      truncated: false,
    });
  });
});

describe("dispatch", () => {
  it("returns the run id when the server gives the run's details", async () => {
    nock(API)
      .post(
        "/repos/o/r/actions/workflows/autogen-verify.yml/dispatches",
        (body: Record<string, unknown>) => body.return_run_details === true,
      )
      .reply(200, {
        workflow_run_id: 77,
        run_url: `${API}/repos/o/r/actions/runs/77`,
        html_url: "https://github.com/o/r/actions/runs/77",
      });
    expect(
      await forge().dispatch("o", "r", "autogen-verify.yml", "main", { refs: "[]", tests: "", correlation_id: "c" }),
    ).toEqual({ runId: 77 });
  });

  it("dispatches again without return_run_details when the server rejects the field, and has no run id", async () => {
    const bodies: Array<Record<string, unknown>> = [];
    nock(API)
      .post(
        "/repos/o/r/actions/workflows/autogen-verify.yml/dispatches",
        (body: Record<string, unknown>) => (bodies.push(body), true),
      )
      .reply(422, { message: 'Invalid request.\n\n"return_run_details" is not a permitted key.' })
      .post(
        "/repos/o/r/actions/workflows/autogen-verify.yml/dispatches",
        (body: Record<string, unknown>) => (bodies.push(body), true),
      )
      .reply(204);
    expect(
      await forge().dispatch("o", "r", "autogen-verify.yml", "main", { refs: "[]", tests: "", correlation_id: "c" }),
    ).toEqual({ runId: undefined });
    expect(bodies.map((b) => "return_run_details" in b)).toEqual([true, false]);
  });

  it("any other rejection is an error", async () => {
    nock(API)
      .post("/repos/o/r/actions/workflows/autogen-verify.yml/dispatches")
      .reply(422, { message: "Workflow does not have 'workflow_dispatch' trigger" });
    await expect(forge().dispatch("o", "r", "autogen-verify.yml", "main", {})).rejects.toThrow(/workflow_dispatch/);
  });
});

describe("answers", () => {
  it("cancelling a finished run (409) is not an error", async () => {
    nock(API)
      .post("/repos/o/r/actions/runs/9/cancel")
      .reply(409, { message: "Cannot cancel a workflow run that is completed." });
    await expect(forge().cancelRun("o", "r", 9)).resolves.toBeUndefined();
  });

  it("an answer of the wrong shape is named, not passed on", async () => {
    nock(API).get("/repos/o/r/actions/runs/9").reply(200, { id: "nine" });
    await expect(forge().workflowRun("o", "r", 9)).rejects.toThrow(
      /workflow run 9 did not have the expected shape: id:/,
    );
  });
});

describe("what reaches git and the workflow", () => {
  it("a pull request whose head is not a commit id is refused", async () => {
    nock(API)
      .get("/repos/o/r/pulls/3")
      .reply(200, {
        number: 3,
        title: "t",
        body: null,
        state: "open",
        html_url: "u",
        head: { ref: "x", sha: "--upload-pack=evil", repo: null },
        base: { ref: "main", sha: "a".repeat(40), repo: { full_name: "o/r" } },
      });
    await expect(forge().pull("o", "r", 3)).rejects.toThrow(
      /pull request #3 did not have the expected shape: head\.sha: not a commit id/,
    );
  });

  it("test ids that could be options or separators never reach a dispatch", () => {
    expect(() => workflowTestIds(["tests/test_a.py::test_x", "--junitxml=/tmp/x"])).toThrow(
      /could be read as an option/,
    );
    expect(() => workflowTestIds(["tests/test_a.py::test_x[a b]"])).toThrow(/contains whitespace/);
    expect(workflowTestIds(["tests/test_a.py::test_x", "tests/test_b.py::test_y[1-2]"])).toBe(
      "tests/test_a.py::test_x tests/test_b.py::test_y[1-2]",
    );
  });
});
