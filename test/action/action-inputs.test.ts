// The action's inputs as the runner passes them (INPUT_<NAME>, dashes kept), each bad
// value refused with the input to set, and how they override the repository's config.
import { describe, expect, it } from "vitest";
import { applyActionInputs, readActionInputs } from "../../src/action/action-inputs.ts";
import { parseRepoConfigText } from "../../src/config/parse-repo-config.ts";

const env = (inputs: Record<string, string>) =>
  Object.fromEntries(
    Object.entries({ "github-token": "ghs_token1234567890", label: "autogen", ...inputs }).map(([k, v]) => [
      `INPUT_${k.toUpperCase()}`,
      v,
    ]),
  );

describe("action inputs", () => {
  it("reads the runner's INPUT_ variables, with the model endpoint from the key and base URL", () => {
    const inputs = readActionInputs(
      env({
        "llm-api-key": "sk-key-123456789",
        "llm-base-url": "http://127.0.0.1:8080/v1",
        model: "qwen",
        strategy: "lpw",
        "max-cost-usd": "0.5",
        "max-attempts": "7",
      }),
    );
    expect(inputs).toEqual({
      githubToken: "ghs_token1234567890",
      llm: { baseURL: "http://127.0.0.1:8080/v1", apiKey: "sk-key-123456789", model: "qwen" },
      strategy: "lpw",
      label: "autogen",
      maxCostUsd: 0.5,
      maxAttempts: 7,
      appSlug: undefined,
    });
    expect(readActionInputs(env({})).llm).toBeUndefined();
  });

  it.each([
    [{ "github-token": "" }, /`github-token` is empty/],
    [{ strategy: "magic" }, /`strategy` is "magic": set one of lpw, slpw, seidr, direct, template/],
    [{ strategy: "seidr" }, /`strategy: seidr` needs a model: set `llm-api-key`/],
    [{ "llm-base-url": "not a url", "llm-api-key": "sk-key-123456789" }, /`llm-base-url` is not an http\(s\) URL/],
    [{ "max-cost-usd": "lots" }, /`max-cost-usd` is "lots": set a number of US dollars from 0 to 100/],
    [{ "max-cost-usd": "101" }, /`max-cost-usd` is "101"/],
    [{ "max-attempts": "2.5" }, /`max-attempts` is "2.5": set a whole number of candidates from 1 to 500/],
    [{ label: "x".repeat(51) }, /`label` is longer than 50 characters/],
    [
      { "app-slug": "evil/../slug" },
      /`app-slug` is "evil\/\.\.\/slug": set the `app-slug` output of actions\/create-github-app-token/,
    ],
  ])("refuses %j with what to set", (inputs, message) => {
    expect(() => readActionInputs(env(inputs))).toThrow(message);
  });

  it("overrides the repository's config where an input is set, and always verifies locally", () => {
    const config = parseRepoConfigText(
      "label: fix-me\nverify: actions\nstrategy:\n  name: seidr\nbudgets:\n  dollars: 2\n  iterations: 30\n",
    );
    const unset = applyActionInputs(config, readActionInputs(env({ label: "fix-me" })));
    expect(unset).toMatchObject({
      verify: "local",
      label: "fix-me",
      strategy: { name: "seidr" },
      budgets: { dollars: 2, iterations: 30 },
    });
    const set = applyActionInputs(
      config,
      readActionInputs(env({ strategy: "template", "max-cost-usd": "0", "max-attempts": "5" })),
    );
    expect(set).toMatchObject({
      verify: "local",
      label: "autogen",
      strategy: { name: "template" },
      budgets: { dollars: 0, iterations: 5, llmCalls: config.budgets.llmCalls },
    });
  });
});
