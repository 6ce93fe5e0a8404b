// AUTOGEN_GITHUB_WRITE_SPACING_MS: the spacing of writes to GitHub, read at the edge; a
// value that is no whole number of milliseconds in range is refused with what to set.
// (test/action/action-flow runs the Action with it set to 0 against the fake GitHub.)
import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { writeSpacedOctokit, writeSpacingFromEnv } from "../../src/forge/write-spacing.ts";
import { useHttpMock } from "../support/http-mock.ts";

useHttpMock();

describe("write spacing", () => {
  it("is GitHub's when unset or blank, and the number of milliseconds set otherwise", () => {
    expect(writeSpacingFromEnv({})).toBeUndefined();
    expect(writeSpacingFromEnv({ AUTOGEN_GITHUB_WRITE_SPACING_MS: " " })).toBeUndefined();
    expect(writeSpacingFromEnv({ AUTOGEN_GITHUB_WRITE_SPACING_MS: "0" })).toBe(0);
    expect(writeSpacingFromEnv({ AUTOGEN_GITHUB_WRITE_SPACING_MS: "250" })).toBe(250);
    expect(writeSpacingFromEnv({ AUTOGEN_GITHUB_WRITE_SPACING_MS: "60000" })).toBe(60_000);
  });

  it.each(["-1", "1.5", "soon", "60001", "1e9"])("refuses %s, naming the variable and what to set", (value) => {
    expect(() => writeSpacingFromEnv({ AUTOGEN_GITHUB_WRITE_SPACING_MS: value })).toThrow(
      /^AUTOGEN_GITHUB_WRITE_SPACING_MS is .*: set a whole number of milliseconds from 0 to 60000/,
    );
  });

  it("only spaces: writes and notifying writes still reach GitHub, and their answers come back", async () => {
    const sent: string[] = [];
    nock("https://api.github.com")
      .post("/repos/octo-org/shop/issues/7/comments")
      .reply(201, () => (sent.push("comment"), { id: 1 }))
      .patch("/repos/octo-org/shop/issues/comments/1")
      .reply(200, () => (sent.push("update"), { id: 1, body: "b" }))
      .post("/repos/octo-org/shop/git/blobs")
      .reply(201, () => (sent.push("blob"), { sha: "b1" }));
    const Octokit = writeSpacedOctokit(ProbotOctokit, 0);
    const octokit = new Octokit({ auth: "ghs_test" });
    const repo = { owner: "octo-org", repo: "shop" };
    expect((await octokit.rest.issues.createComment({ ...repo, issue_number: 7, body: "a" })).data).toEqual({ id: 1 });
    expect((await octokit.rest.issues.updateComment({ ...repo, comment_id: 1, body: "b" })).data.body).toBe("b");
    expect((await octokit.rest.git.createBlob({ ...repo, content: "c" })).data.sha).toBe("b1");
    expect(sent).toEqual(["comment", "update", "blob"]);
    expect(nock.isDone()).toBe(true);
  });
});
