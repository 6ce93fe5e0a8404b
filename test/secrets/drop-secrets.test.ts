// The bot's own environment loses its secrets once they are read; locations and numbers stay.
import { describe, expect, it } from "vitest";
import { droppedSecrets, dropSecretsFromEnvironment } from "../../src/secrets/drop-secrets.ts";

describe("dropSecretsFromEnvironment", () => {
  it("removes tokens, keys and secrets, keeps paths and short values, and remembers the values for the scrubber", () => {
    const env: NodeJS.ProcessEnv = {
      PATH: "/usr/bin",
      OPENAI_API_KEY: "sk-canary-0123456789abcdef",
      GITHUB_TOKEN: "ghs_canary0123456789abcdef",
      WEBHOOK_SECRET: "whsec-canary-0123456789",
      PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nMIIcanary\n-----END RSA PRIVATE KEY-----",
      PRIVATE_KEY_PATH: "/etc/autogen/app.pem",
      AUTOGEN_MAX_TOKENS: "600000",
      DB_PASSWORD: "hunter2hunter2",
      AWS_SECRET_ACCESS_KEY: "abcdEFGHijklMNOPqrst",
      DATABASE_URL: "postgres://autogen:pw-canary@db:5432/autogen",
    };
    const names = dropSecretsFromEnvironment(env);
    expect(names.sort()).toEqual([
      "AWS_SECRET_ACCESS_KEY",
      "DATABASE_URL",
      "DB_PASSWORD",
      "GITHUB_TOKEN",
      "OPENAI_API_KEY",
      "PRIVATE_KEY",
      "WEBHOOK_SECRET",
    ]);
    expect(env).toEqual({ PATH: "/usr/bin", PRIVATE_KEY_PATH: "/etc/autogen/app.pem", AUTOGEN_MAX_TOKENS: "600000" });
    expect(droppedSecrets()).toEqual(
      expect.arrayContaining([
        "sk-canary-0123456789abcdef",
        "ghs_canary0123456789abcdef",
        "hunter2hunter2",
        "postgres://autogen:pw-canary@db:5432/autogen",
      ]),
    );
  });
});
