// The job page's check-run link comes from the checkpoint another part of the App writes:
// `checkRun` (GitHub's check run object: html_url, else url) or `checkRunUrl`. Only http(s)
// addresses become links, so a stored `javascript:` address never reaches an href.
import { describe, expect, it } from "vitest";
import { checkRunLink, webLink } from "../../src/ops/sqlite-job-history.ts";

describe("checkRunLink", () => {
  it("takes html_url, then url, then checkRunUrl", () => {
    expect(
      checkRunLink(
        { html_url: "https://github.com/o/r/runs/1", url: "https://api.github.com/repos/o/r/check-runs/1" },
        "https://github.com/o/r/runs/2",
      ),
    ).toBe("https://github.com/o/r/runs/1");
    expect(checkRunLink({ id: 1, url: "https://ghe.example/o/r/runs/1" }, undefined)).toBe(
      "https://ghe.example/o/r/runs/1",
    );
    expect(checkRunLink({ id: 1 }, "https://github.com/o/r/runs/2")).toBe("https://github.com/o/r/runs/2");
    expect(checkRunLink(undefined, "https://github.com/o/r/runs/3")).toBe("https://github.com/o/r/runs/3");
  });

  it("ignores what is not an http(s) address", () => {
    expect(checkRunLink({ html_url: "javascript:alert(1)" }, undefined)).toBeUndefined();
    expect(checkRunLink({ html_url: 42, url: "data:text/html,<script>" }, "javascript:alert(1)")).toBeUndefined();
    expect(checkRunLink("https://github.com/o/r/runs/1", undefined)).toBeUndefined();
    expect(checkRunLink(null, "not a url")).toBeUndefined();
    expect(webLink(" JAVASCRIPT:alert(1)")).toBeUndefined();
    expect(webLink("http://127.0.0.1:3000/runs/1")).toBe("http://127.0.0.1:3000/runs/1");
  });
});
