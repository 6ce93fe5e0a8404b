import { describe, expect, it } from "vitest";
import { neutralizeMentions } from "../../src/secrets/neutralize-mentions.ts";

describe("mentions in what the bot posts", () => {
  it("users and teams in prose no longer notify", () => {
    expect(neutralizeMentions("autogen: fix CI of #7 (ping @octocat and @octo-org/everyone)")).toBe(
      "autogen: fix CI of #7 (ping @\u200boctocat and @\u200bocto-org/everyone)",
    );
  });

  it("code blocks, inline code and e-mail addresses are left byte-exact", () => {
    const text = [
      "Apply:",
      "```diff",
      "+@pytest.mark.parametrize('x', [1])",
      "```",
      "then `@decorator` and mail dev@example.com",
    ].join("\n");
    expect(neutralizeMentions(text)).toBe(text);
  });

  it("a longer fence is only closed by a fence as long", () => {
    const text = ["````", "```", "@inside", "````", "@outside"].join("\n");
    expect(neutralizeMentions(text).split("\n")).toEqual(["````", "```", "@inside", "````", "@\u200boutside"]);
  });
});
