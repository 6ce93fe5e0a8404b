import { describe, expect, it } from "vitest";
import { ENV_DOCS_HINT, ENV_HELP, EnvConfigError, loadServerConfig } from "../../src/config/env-config.ts";
import { LLM_ENV_HELP, LlmEnvError, llmEndpointFromEnv } from "../../src/config/llm-env.ts";
import { testPrivateKey } from "../support/private-key.ts";

const server = () => ({
  APP_ID: "123",
  PRIVATE_KEY: testPrivateKey(),
  WEBHOOK_SECRET: "a-long-enough-secret",
  HOME: "/home/someone",
  AUTOGEN_LLM_BASE_URL: "http://localhost:11434/v1",
});

function serverError(env: NodeJS.ProcessEnv): string {
  try {
    loadServerConfig(env);
  } catch (error) {
    if (error instanceof EnvConfigError) return error.message;
    throw error;
  }
  throw new Error("expected start-up to be refused");
}

describe("LLM timeout and completion cap from the environment", () => {
  it("leaves both unset by default, so the client's documented defaults apply", () => {
    expect(llmEndpointFromEnv({ AUTOGEN_LLM_BASE_URL: "http://localhost:11434/v1" })).toEqual({
      baseURL: "http://localhost:11434/v1",
      apiKey: undefined,
      model: "gpt-4o-mini",
    });
    expect(loadServerConfig(server()).llm).toEqual({
      baseURL: "http://localhost:11434/v1",
      apiKey: undefined,
      model: "gpt-4o-mini",
    });
    expect(LLM_ENV_HELP.AUTOGEN_LLM_TIMEOUT).toContain("a whole number from 1 to 300 (default 120)");
    expect(LLM_ENV_HELP.AUTOGEN_LLM_MAX_TOKENS_PER_CALL).toContain("(default 4096)");
  });

  it("reads the idle timeout in seconds and the per-stage caps, for the CLI and the server alike", () => {
    const env = { AUTOGEN_LLM_TIMEOUT: "240", AUTOGEN_LLM_MAX_TOKENS_PER_CALL: " 2048, implement=8192 ,refine=8192" };
    const expected = {
      idleTimeoutMs: 240_000,
      maxTokens: { default: 2048, byStage: { implement: 8192, refine: 8192 } },
    };
    expect(llmEndpointFromEnv({ AUTOGEN_LLM_BASE_URL: "http://localhost:8080/v1", ...env })).toMatchObject(expected);
    expect(loadServerConfig({ ...server(), ...env }).llm).toMatchObject(expected);
    expect(
      llmEndpointFromEnv({ OPENAI_API_KEY: "sk-x", AUTOGEN_LLM_MAX_TOKENS_PER_CALL: "plan=1024" })?.maxTokens,
    ).toEqual({ default: 4096, byStage: { plan: 1024 } });
  });

  it("refuses a bad timeout with a line naming the variable, its range and its default", () => {
    for (const bad of ["0", "301", "2.5", "two minutes", "-5"]) {
      expect(() =>
        llmEndpointFromEnv({ AUTOGEN_LLM_BASE_URL: "http://localhost:8080/v1", AUTOGEN_LLM_TIMEOUT: bad }),
      ).toThrow(
        new LlmEnvError(
          `AUTOGEN_LLM_TIMEOUT is invalid (got ${JSON.stringify(bad)}): set it to ${LLM_ENV_HELP.AUTOGEN_LLM_TIMEOUT}.`,
        ),
      );
      expect(serverError({ ...server(), AUTOGEN_LLM_TIMEOUT: bad })).toBe(
        `AUTOGEN_LLM_TIMEOUT is invalid (got ${JSON.stringify(bad)}): set it to ${ENV_HELP.AUTOGEN_LLM_TIMEOUT}.\n${ENV_DOCS_HINT}`,
      );
    }
  });

  it("refuses a bad completion cap, saying which part is wrong", () => {
    const cli = (value: string) => () =>
      llmEndpointFromEnv({ OPENAI_API_KEY: "sk-x", AUTOGEN_LLM_MAX_TOKENS_PER_CALL: value });
    expect(cli("lots")).toThrow(
      /^AUTOGEN_LLM_MAX_TOKENS_PER_CALL is invalid \(lots: not a whole number from 16 to 1000000\): set it to the most completion tokens/,
    );
    expect(cli("4096,planning=100")).toThrow("AUTOGEN_LLM_MAX_TOKENS_PER_CALL is invalid (planning: not a stage)");
    expect(cli("plan=100,4096")).toThrow(
      "AUTOGEN_LLM_MAX_TOKENS_PER_CALL is invalid (4096: only the first value may be without a stage)",
    );
    expect(cli("4096,")).toThrow("AUTOGEN_LLM_MAX_TOKENS_PER_CALL is invalid ((empty): not a whole number");
    expect(serverError({ ...server(), AUTOGEN_LLM_MAX_TOKENS_PER_CALL: "8" })).toMatch(
      /^AUTOGEN_LLM_MAX_TOKENS_PER_CALL is invalid \(got "8"\): set it to the most completion tokens one model call may ask for/,
    );
  });
});
