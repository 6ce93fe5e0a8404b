import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultDataDir } from "../../src/config/data-dir.ts";
import { ENV_DOCS_HINT, ENV_HELP, EnvConfigError, loadServerConfig } from "../../src/config/env-config.ts";
import { testPrivateKey } from "../support/private-key.ts";

const base = () => ({
  APP_ID: "123",
  PRIVATE_KEY: testPrivateKey(),
  WEBHOOK_SECRET: "a-long-enough-secret",
  HOME: "/home/someone",
});

function errorOf(env: NodeJS.ProcessEnv): string {
  try {
    loadServerConfig(env);
  } catch (error) {
    if (error instanceof EnvConfigError) return error.message;
    throw error;
  }
  throw new Error("expected start-up to be refused");
}

describe("server environment", () => {
  it("accepts a minimal environment and fills defaults", () => {
    const config = loadServerConfig(base());
    expect(config).toMatchObject({
      appId: 123,
      webhookPath: "/api/github/webhooks",
      host: "localhost",
      port: 3000,
      logLevel: "info",
      llm: undefined,
      concurrency: 2,
    });
    expect(config.caps).toEqual({ llmCalls: 80, tokens: 600_000, dollars: 3, minutes: 45 });
    expect(config.dbPath).toMatch(/autogen-bot[/\\]autogen\.db$/);
    expect(config.maxWebhookBodyBytes).toBe(4 * 1024 * 1024);
  });

  it("takes a webhook body limit between 64 KiB and GitHub's 25 MB cap", () => {
    expect(loadServerConfig({ ...base(), AUTOGEN_WEBHOOK_MAX_BODY_BYTES: "131072" }).maxWebhookBodyBytes).toBe(131_072);
    expect(errorOf({ ...base(), AUTOGEN_WEBHOOK_MAX_BODY_BYTES: String(26 * 1024 * 1024) })).toMatch(
      /^AUTOGEN_WEBHOOK_MAX_BODY_BYTES is invalid \(got "27262976"\): set it to the largest webhook body accepted/,
    );
    expect(errorOf({ ...base(), AUTOGEN_WEBHOOK_MAX_BODY_BYTES: "4MB" })).toMatch(
      /^AUTOGEN_WEBHOOK_MAX_BODY_BYTES is invalid/,
    );
  });

  it("names a missing variable, says what to put there, and where every variable is documented", () => {
    const { APP_ID: _drop, ...env } = base();
    const message = errorOf(env);
    expect(message).toBe(`APP_ID is not set: set it to ${ENV_HELP.APP_ID}.\n${ENV_DOCS_HINT}`);
    expect(message).toContain(".env.example");
    expect(message).toContain("docs/deployment.md");
  });

  it("reports every missing or invalid variable in one run, not one per start", () => {
    const message = errorOf({ HOME: "/home/someone", PORT: "70000", PRIVATE_KEY: "not a key", AUTOGEN_PRICES: "{" });
    const lines = message.split("\n");
    expect(lines[0]).toBe("5 problems with the environment:");
    expect(lines.slice(1, -1).map((l) => l.replace(/^ {2}- (\S+) .*$/, "$1"))).toEqual([
      "APP_ID",
      "WEBHOOK_SECRET",
      "PORT",
      "PRIVATE_KEY",
      "AUTOGEN_PRICES",
    ]);
    expect(message).toMatch(/^ {2}- APP_ID is not set: set it to the numeric App ID/m);
    expect(message).toMatch(/^ {2}- WEBHOOK_SECRET is not set: .*at least 8 characters/m);
    expect(message).toMatch(/^ {2}- PORT is invalid \(got "70000"\)/m);
    expect(message).toMatch(/^ {2}- PRIVATE_KEY is invalid \(not a PEM private key\)/m);
    expect(message).toMatch(/^ {2}- AUTOGEN_PRICES/m);
    expect(lines.at(-1)).toBe(ENV_DOCS_HINT);
  });

  it("treats a blank value as unset", () => {
    expect(errorOf({ ...base(), WEBHOOK_SECRET: "   " })).toMatch(
      /^WEBHOOK_SECRET is not set: set it to the webhook secret/,
    );
  });

  it("names a malformed value and shows what was given", () => {
    expect(errorOf({ ...base(), APP_ID: "abc" })).toBe(
      `APP_ID is invalid (got "abc"): set it to ${ENV_HELP.APP_ID}.\n${ENV_DOCS_HINT}`,
    );
    expect(errorOf({ ...base(), PORT: "70000" })).toMatch(/^PORT is invalid \(got "70000"\)/);
    expect(errorOf({ ...base(), AUTOGEN_LLM_BASE_URL: "ftp://x" })).toMatch(/^AUTOGEN_LLM_BASE_URL is invalid/);
    expect(errorOf({ ...base(), AUTOGEN_MAX_DOLLARS: "-1" })).toMatch(/^AUTOGEN_MAX_DOLLARS is invalid \(got "-1"\)/);
  });

  it("selects Postgres with DATABASE_URL (SQLite stays the default) and never echoes the URL", () => {
    expect(loadServerConfig(base()).databaseUrl).toBeUndefined();
    expect(
      loadServerConfig({ ...base(), DATABASE_URL: "postgres://autogen:pw-canary@db:5432/autogen" }).databaseUrl,
    ).toBe("postgres://autogen:pw-canary@db:5432/autogen");
    const message = errorOf({ ...base(), DATABASE_URL: "mysql://autogen:pw-canary@db/autogen" });
    expect(message).toMatch(/^DATABASE_URL is invalid \(got "<hidden>"\): set it to a Postgres connection string/);
    expect(message).not.toContain("pw-canary");
  });

  it("never echoes a secret's value", () => {
    const message = errorOf({ ...base(), WEBHOOK_SECRET: "short" });
    expect(message).toMatch(/^WEBHOOK_SECRET is invalid \(got "<hidden>"\)/);
    expect(message).not.toContain("short");
  });

  it("requires a private key, inline or by path", () => {
    const { PRIVATE_KEY: _drop, ...env } = base();
    expect(errorOf(env)).toMatch(/^PRIVATE_KEY is not set: .*or set PRIVATE_KEY_PATH instead\.$/m);
    expect(errorOf({ ...env, PRIVATE_KEY: "not a key" })).toMatch(/^PRIVATE_KEY is invalid \(not a PEM private key\)/);
    expect(errorOf({ ...env, PRIVATE_KEY_PATH: "/nonexistent/key.pem" })).toMatch(
      /^PRIVATE_KEY_PATH points to a file that cannot be read \(ENOENT\)/,
    );
  });

  it("reads the key from a file, from base64, and from escaped newlines", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-key-"));
    const path = join(dir, "app.pem");
    await writeFile(path, testPrivateKey());
    const { PRIVATE_KEY: _drop, ...env } = base();
    expect(loadServerConfig({ ...env, PRIVATE_KEY_PATH: path }).privateKey).toBe(testPrivateKey());
    expect(loadServerConfig({ ...env, PRIVATE_KEY: Buffer.from(testPrivateKey()).toString("base64") }).privateKey).toBe(
      testPrivateKey(),
    );
    expect(loadServerConfig({ ...env, PRIVATE_KEY: testPrivateKey().replaceAll("\n", "\\n") }).privateKey).toBe(
      testPrivateKey(),
    );
  });

  it("configures the LLM endpoint only when asked, never requiring a key for local servers", () => {
    expect(loadServerConfig({ ...base(), AUTOGEN_LLM_BASE_URL: "http://localhost:11434/v1" }).llm).toEqual({
      baseURL: "http://localhost:11434/v1",
      apiKey: undefined,
      model: "gpt-4o-mini",
    });
    expect(loadServerConfig({ ...base(), OPENAI_API_KEY: "sk-test", AUTOGEN_LLM_MODEL: "gpt-4o" }).llm).toEqual({
      baseURL: "https://api.openai.com/v1",
      apiKey: "sk-test",
      model: "gpt-4o",
    });
  });

  it("derives the REST base URL for GitHub Enterprise Server", () => {
    expect(loadServerConfig({ ...base(), GHE_HOST: "github.example.com" }).baseUrl).toBe(
      "https://github.example.com/api/v3",
    );
  });

  it("uses each platform's data directory", () => {
    expect(defaultDataDir({ XDG_DATA_HOME: "/xdg" }, "linux", "/home/a")).toBe("/xdg/autogen-bot");
    expect(defaultDataDir({}, "linux", "/home/a")).toBe("/home/a/.local/share/autogen-bot");
    expect(defaultDataDir({}, "darwin", "/Users/a")).toBe("/Users/a/Library/Application Support/autogen-bot");
  });

  it(".env.example lists every variable the server reads", async () => {
    const example = await readFile(new URL("../../.env.example", import.meta.url), "utf8");
    for (const name of Object.keys(ENV_HELP)) expect(example).toMatch(new RegExp(`^#? ?${name}=`, "m"));
  });
});
