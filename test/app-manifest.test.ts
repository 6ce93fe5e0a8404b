import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

type Manifest = { default_permissions: Record<string, string>; default_events: string[] };

describe("app.yml", () => {
  it("asks for least privilege and never for the workflows permission", async () => {
    const manifest = parse(await readFile(new URL("../app.yml", import.meta.url), "utf8")) as Manifest;
    expect(manifest.default_permissions).toEqual({
      metadata: "read",
      issues: "write",
      pull_requests: "write",
      contents: "write",
      actions: "write",
      checks: "write",
      statuses: "read",
    });
    expect(Object.keys(manifest.default_permissions)).not.toContain("workflows");
  });

  it("subscribes to exactly the events the bot handles", async () => {
    const manifest = parse(await readFile(new URL("../app.yml", import.meta.url), "utf8")) as Manifest;
    expect([...manifest.default_events].sort()).toEqual(
      [
        "check_run",
        "check_suite",
        "issue_comment",
        "issues",
        "pull_request",
        "pull_request_review",
        "pull_request_review_comment",
        "workflow_run",
      ].sort(),
    );
  });
});
