import { describe, expect, it } from "vitest";
import { repoOf } from "../../src/forge/repo-ref.ts";

describe("repoOf", () => {
  it("names the repository of a webhook payload as the forge's calls do", () => {
    const payload = {
      repository: { name: "gradebook", owner: { login: "octo-org" }, full_name: "octo-org/gradebook" },
    };
    expect(repoOf(payload)).toEqual({ owner: "octo-org", repo: "gradebook" });
  });
});
