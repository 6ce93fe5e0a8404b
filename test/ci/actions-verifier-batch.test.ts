// Candidates validated side by side go to GitHub Actions in one dispatch (a matrix job each),
// however far apart a busy machine makes their runs arrive: under load, the template's four
// parallel candidates had reached the verifier more than the 25 ms window apart and went as
// four dispatches (four workflow runs of the user's Actions minutes instead of one). GitHub is
// nock over HTTP; the workspaces are real git repositories.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Octokit } from "@octokit/rest";
import nock from "nock";
import { nockOn } from "../support/nock-on.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { actionsVerifier } from "../../src/ci/actions-verifier.ts";
import type { RequestLike } from "../../src/forge/ci-forge.ts";
import { octokitCiForge } from "../../src/forge/octokit-ci-forge.ts";
import type { TestSelection } from "../../src/verify/runners/test-runner.ts";

const API = "https://api.github.com";
const SELECTION: TestSelection = { kind: "tests", ids: ["tests/test_a.py::test_one"] };

function workspace(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), "autogen-batch-"));
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { stdio: "pipe" });
  git("init", "-q");
  writeFileSync(join(dir, "a.py"), `x = ${String(n)}\n`);
  git("add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init");
  writeFileSync(join(dir, "a.py"), `x = ${String(n + 100)}\n`);
  return dir;
}

/** GitHub's side: each dispatch recorded, its run completed at once with one successful job per ref. */
function fakeActions(): string[][] {
  const dispatched: string[][] = [];
  const refsOf = (id: number) => dispatched[id - 1] ?? [];
  nock(API)
    .persist()
    .post("/repos/o/r/actions/workflows/autogen-verify.yml/dispatches")
    .reply(async (request: Request) => {
      const sent = JSON.parse(await request.text()) as { inputs: { refs: string } };
      dispatched.push(JSON.parse(sent.inputs.refs) as string[]);
      const id = dispatched.length;
      return [
        200,
        { workflow_run_id: id, run_url: `${API}/repos/o/r/actions/runs/${id}`, html_url: `https://github.com/r/${id}` },
      ];
    });
  nock(API)
    .persist()
    .get(/^\/repos\/o\/r\/actions\/runs\/\d+$/)
    .reply((request: Request) => {
      const id = Number(new URL(request.url).pathname.split("/").at(-1));
      return [
        200,
        {
          id,
          event: "workflow_dispatch",
          status: "completed",
          conclusion: "success",
          head_sha: "a".repeat(40),
          head_branch: "main",
          html_url: `https://github.com/r/${id}`,
          display_title: "verify",
          created_at: new Date().toISOString(),
        },
      ];
    });
  nock(API)
    .persist()
    .get(/^\/repos\/o\/r\/actions\/runs\/\d+\/jobs/)
    .reply((request: Request) => {
      const id = Number(/runs\/(\d+)\/jobs/.exec(request.url)?.[1]);
      const jobs = refsOf(id).map((ref, i) => ({
        id: id * 100 + i,
        name: `verify (${ref})`,
        status: "completed",
        conclusion: "success",
        html_url: null,
        check_run_url: `${API}/repos/o/r/check-runs/${id * 100 + i}`,
        steps: [],
      }));
      return [200, { total_count: jobs.length, jobs }];
    });
  nock(API)
    .persist()
    .get(/^\/repos\/o\/r\/actions\/jobs\/\d+\/logs$/)
    .reply(200, "2024-01-01T00:00:00.0000000Z 1 passed\n", { "content-type": "text/plain" });
  nock(API)
    .persist()
    .get(/^\/repos\/o\/r\/check-runs\/\d+\/annotations/)
    .reply(200, []);
  nock(API)
    .persist()
    .get(/^\/repos\/o\/r\/actions\/runs\/\d+\/artifacts/)
    .reply(200, { total_count: 0, artifacts: [] });
  return dispatched;
}

function verifier(batchHoldMs?: number) {
  const ci = octokitCiForge(
    new Octokit({ auth: "ghs_test", request: { retries: 0 } }).request as unknown as RequestLike,
  );
  const pushed: string[] = [];
  const v = actionsVerifier({
    ci,
    owner: "o",
    repo: "r",
    dispatchRef: "main",
    publish: { push: async (_sha, branch) => void pushed.push(branch), remove: async () => undefined },
    correlation: "job-1",
    timeoutMs: 60_000,
    pollMs: 10,
    ...(batchHoldMs !== undefined ? { batchHoldMs } : {}),
  });
  return { v, pushed };
}

/** `count` runs of one selection, started `gapMs` apart (as candidates on a busy machine reach the verifier). */
async function spread(run: (ws: string) => Promise<unknown>, count: number, gapMs: number): Promise<unknown[]> {
  const runs: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) await sleep(gapMs);
    runs.push(run(workspace(i)));
  }
  return Promise.all(runs);
}

beforeEach(() => nockOn().disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe("the Actions verifier's batches", () => {
  it("sends an announced batch as one dispatch, though its runs arrive 200 ms apart", async () => {
    const dispatched = fakeActions();
    const { v, pushed } = verifier();
    v.expectBatch?.(4);
    const reports = (await spread((ws) => v.run(ws, SELECTION), 4, 200)) as Array<{ run: { exitCode: number } }>;
    expect(dispatched.map((refs) => refs.length)).toEqual([4]);
    expect(pushed).toHaveLength(4);
    expect(reports.map((r) => r.run.exitCode)).toEqual([0, 0, 0, 0]);
    // The announcement is for one batch: the next runs go as they come.
    await spread((ws) => v.run(ws, SELECTION), 2, 200);
    expect(dispatched.map((refs) => refs.length)).toEqual([4, 1, 1]);
  });

  it("sends an announced batch whose last run never comes after its hold time, with the runs that came", async () => {
    const dispatched = fakeActions();
    const { v } = verifier(300);
    v.expectBatch?.(3);
    await spread((ws) => v.run(ws, SELECTION), 2, 50);
    expect(dispatched.map((refs) => refs.length)).toEqual([2]);
  });
});
