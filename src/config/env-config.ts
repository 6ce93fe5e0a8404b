// The server's environment, validated once at start-up. A missing or malformed value
// stops start-up with one line naming the variable and what to put there.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defaultDataDir } from "./data-dir.ts";
import { describe } from "./format-issues.ts";
import {
  DEFAULT_MODEL,
  LLM_ENV_HELP,
  llmEndpoint,
  llmTimeoutSchema,
  maxTokensPerCallSchema,
  type LlmEndpoint,
} from "./llm-env.ts";
import { DEFAULT_MAX_BODY_BYTES, GITHUB_MAX_BODY_BYTES } from "./body-limits.ts";
import { pricesFromEnv, type Price } from "./prices.ts";

export class EnvConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvConfigError";
  }
}

const intFromEnv = (min: number) => z.coerce.number().int().min(min);

/** What each variable is for: used in error lines and mirrored by .env.example (a test checks). */
export const ENV_HELP = {
  APP_ID: "the numeric App ID from your GitHub App's settings page",
  PRIVATE_KEY:
    "the App's private key (PEM text, or the PEM base64-encoded on one line); or set PRIVATE_KEY_PATH instead",
  PRIVATE_KEY_PATH: "the path of the .pem file downloaded from your GitHub App's settings; or set PRIVATE_KEY instead",
  WEBHOOK_SECRET:
    "the webhook secret entered in your GitHub App's settings: at least 8 characters, better 32 random ones (openssl rand -hex 32)",
  WEBHOOK_PATH: "the URL path that receives webhooks (default /api/github/webhooks)",
  HOST: "the address the server listens on (default localhost; 0.0.0.0 in a container)",
  PORT: "the port the server listens on (default 3000)",
  AUTOGEN_WEBHOOK_MAX_BODY_BYTES:
    "the largest webhook body accepted, in bytes (default 4194304, 4 MiB; at most 26214400, GitHub's own 25 MB cap); a bigger delivery is answered 413 and logged",
  LOG_LEVEL: "one of trace, debug, info, warn, error, fatal (default info)",
  GHE_HOST: "your GitHub Enterprise Server host name, when not using github.com",
  AUTOGEN_LLM_BASE_URL:
    "the base URL of an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (leave unset to run model-free)",
  OPENAI_API_KEY: "the API key for the LLM endpoint (not needed by local servers such as Ollama)",
  AUTOGEN_LLM_MODEL: "the model name to request, e.g. gpt-4o-mini (default gpt-4o-mini)",
  AUTOGEN_LLM_TIMEOUT: LLM_ENV_HELP.AUTOGEN_LLM_TIMEOUT,
  AUTOGEN_LLM_MAX_TOKENS_PER_CALL: LLM_ENV_HELP.AUTOGEN_LLM_MAX_TOKENS_PER_CALL,
  AUTOGEN_EMBEDDING_MODEL:
    "an embedding model on the same endpoint (e.g. text-embedding-3-small) for hybrid memory retrieval; unset: BM25 only",
  AUTOGEN_DB_PATH: "the SQLite file for jobs and memory (default: autogen.db in the user's data directory)",
  DATABASE_URL:
    "a Postgres connection string (postgres://user:password@host:5432/db) for jobs and deliveries shared by several instances (default: unset, SQLite at AUTOGEN_DB_PATH; memory stays in SQLite)",
  AUTOGEN_CONCURRENCY: "how many jobs run at once (default 2)",
  AUTOGEN_ISOLATION:
    "force the test sandbox's isolation: bwrap or unshare (default: the strongest available); none runs tests unsandboxed and is refused as root without AUTOGEN_ALLOW_UNSANDBOXED_ROOT",
  AUTOGEN_ALLOW_UNSANDBOXED_ROOT:
    "set to 1 to allow AUTOGEN_ISOLATION=none while running as root (the tests can then do anything root can)",
  AUTOGEN_ALLOW_SETUP_NETWORK:
    "set to 1 to let a repository's setup command (test.setup with test.networkDuringSetup: true) reach the network; it then shares the host's network namespace, loopback services included",
  AUTOGEN_SANDBOX_HIDE:
    "more host paths to hide from test runs, separated by ':' (the bot's home, data directory, key file and .env are always hidden)",
  AUTOGEN_MAX_LLM_CALLS: "server-wide cap on model calls per job (default 80); repository configs cannot raise it",
  AUTOGEN_MAX_TOKENS: "server-wide cap on tokens per job (default 600000)",
  AUTOGEN_MAX_DOLLARS: "server-wide cap on estimated dollars per job (default 3)",
  AUTOGEN_MAX_MINUTES: "server-wide cap on wall minutes per job (default 45)",
  AUTOGEN_PRICES:
    'model prices in dollars per million tokens as JSON, added to or replacing the built-in table, e.g. {"my-model":{"input":1,"cachedInput":0.5,"output":4}}',
} as const;

export type EnvVarName = keyof typeof ENV_HELP;

const envSchema = z.object({
  APP_ID: intFromEnv(1),
  PRIVATE_KEY: z.string().min(1).optional(),
  PRIVATE_KEY_PATH: z.string().min(1).optional(),
  WEBHOOK_SECRET: z.string().min(8),
  WEBHOOK_PATH: z.string().startsWith("/").default("/api/github/webhooks"),
  HOST: z.string().min(1).default("localhost"),
  PORT: intFromEnv(0).max(65535).default(3000),
  AUTOGEN_WEBHOOK_MAX_BODY_BYTES: intFromEnv(64 * 1024)
    .max(GITHUB_MAX_BODY_BYTES)
    .default(DEFAULT_MAX_BODY_BYTES),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal"]).default("info"),
  GHE_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.-]+(:\d+)?$/)
    .optional(),
  AUTOGEN_LLM_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  AUTOGEN_LLM_MODEL: z.string().min(1).default(DEFAULT_MODEL),
  AUTOGEN_LLM_TIMEOUT: llmTimeoutSchema.optional(),
  AUTOGEN_LLM_MAX_TOKENS_PER_CALL: maxTokensPerCallSchema.optional(),
  AUTOGEN_EMBEDDING_MODEL: z.string().min(1).optional(),
  AUTOGEN_DB_PATH: z.string().min(1).optional(),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  AUTOGEN_CONCURRENCY: intFromEnv(1).max(64).default(2),
  AUTOGEN_ISOLATION: z.enum(["bwrap", "unshare", "none"]).optional(),
  AUTOGEN_ALLOW_UNSANDBOXED_ROOT: z.enum(["0", "1"]).optional(),
  AUTOGEN_ALLOW_SETUP_NETWORK: z.enum(["0", "1"]).optional(),
  AUTOGEN_SANDBOX_HIDE: z.string().optional(),
  AUTOGEN_MAX_LLM_CALLS: intFromEnv(1).default(80),
  AUTOGEN_MAX_TOKENS: intFromEnv(1).default(600_000),
  AUTOGEN_MAX_DOLLARS: z.coerce.number().min(0).default(3),
  AUTOGEN_MAX_MINUTES: intFromEnv(1).default(45),
  AUTOGEN_PRICES: z.string().optional(),
} satisfies Record<EnvVarName, z.ZodType>);

export type ServerConfig = {
  appId: number;
  privateKey: string;
  webhookSecret: string;
  webhookPath: string;
  host: string;
  port: number;
  /** The largest webhook body accepted (AUTOGEN_WEBHOOK_MAX_BODY_BYTES). */
  maxWebhookBodyBytes: number;
  logLevel: "trace" | "debug" | "info" | "warn" | "error" | "fatal";
  baseUrl: string | undefined;
  llm: LlmEndpoint | undefined;
  dbPath: string;
  /** Set: jobs and deliveries in this Postgres database (several instances); unset: SQLite at dbPath. */
  databaseUrl: string | undefined;
  concurrency: number;
  caps: { llmCalls: number; tokens: number; dollars: number; minutes: number };
  prices: Record<string, Price>;
};

/** Blank values count as unset, as most deployment dashboards leave them. */
function present(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(ENV_HELP)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") out[name] = value.trim();
  }
  return out;
}

/** Where a newcomer learns what to set; every error of start-up ends with it. */
export const ENV_DOCS_HINT =
  "Set these in the environment (docker --env-file, a systemd EnvironmentFile, your host's settings): every variable is listed in .env.example, and docs/deployment.md says how to create the GitHub App from app.yml.";

/** One line for each problem in `values` against the schema: every missing or invalid variable at once. */
function problemLines(values: Record<string, string>, issues: readonly z.core.$ZodIssue[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const issue of issues) {
    const name = String(issue.path[0] ?? "environment") as EnvVarName;
    if (seen.has(name)) continue;
    seen.add(name);
    const given = values[name];
    const secret = name.includes("KEY") || name.includes("SECRET") || name === "DATABASE_URL";
    const problem = given === undefined ? "is not set" : `is invalid (got ${describe(secret ? "<hidden>" : given)})`;
    lines.push(`${name} ${problem}: set it to ${ENV_HELP[name] ?? "a valid value"}.`);
  }
  return lines;
}

function startupError(lines: string[]): EnvConfigError {
  if (lines.length === 1) return new EnvConfigError(`${lines[0]}\n${ENV_DOCS_HINT}`);
  return new EnvConfigError(
    `${lines.length} problems with the environment:\n${lines.map((l) => `  - ${l}`).join("\n")}\n${ENV_DOCS_HINT}`,
  );
}

export function loadServerConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const values = present(env);
  const parsed = envSchema.safeParse(values, { reportInput: true });
  const lines = parsed.success ? [] : problemLines(values, parsed.error.issues);
  let privateKey: string | undefined;
  let prices: Record<string, Price> | undefined;
  try {
    privateKey = readPrivateKey(values.PRIVATE_KEY, values.PRIVATE_KEY_PATH);
  } catch (error) {
    if (!(error instanceof EnvConfigError)) throw error;
    lines.push(error.message);
  }
  try {
    prices = readPrices(env);
  } catch (error) {
    if (!(error instanceof EnvConfigError)) throw error;
    lines.push(error.message);
  }
  if (!parsed.success || privateKey === undefined || prices === undefined) throw startupError(lines);
  const e = parsed.data;
  return {
    appId: e.APP_ID,
    privateKey,
    webhookSecret: e.WEBHOOK_SECRET,
    webhookPath: e.WEBHOOK_PATH,
    host: e.HOST,
    port: e.PORT,
    maxWebhookBodyBytes: e.AUTOGEN_WEBHOOK_MAX_BODY_BYTES,
    logLevel: e.LOG_LEVEL,
    baseUrl: e.GHE_HOST ? `https://${e.GHE_HOST}/api/v3` : undefined,
    llm: llmEndpoint(e.AUTOGEN_LLM_BASE_URL, e.OPENAI_API_KEY, e.AUTOGEN_LLM_MODEL, {
      ...(e.AUTOGEN_LLM_TIMEOUT !== undefined ? { idleTimeoutMs: e.AUTOGEN_LLM_TIMEOUT * 1000 } : {}),
      ...(e.AUTOGEN_LLM_MAX_TOKENS_PER_CALL ? { maxTokens: e.AUTOGEN_LLM_MAX_TOKENS_PER_CALL } : {}),
    }),
    dbPath: e.AUTOGEN_DB_PATH ?? join(defaultDataDir(env), "autogen.db"),
    databaseUrl: e.DATABASE_URL,
    concurrency: e.AUTOGEN_CONCURRENCY,
    caps: {
      llmCalls: e.AUTOGEN_MAX_LLM_CALLS,
      tokens: e.AUTOGEN_MAX_TOKENS,
      dollars: e.AUTOGEN_MAX_DOLLARS,
      minutes: e.AUTOGEN_MAX_MINUTES,
    },
    prices,
  };
}

function readPrices(env: NodeJS.ProcessEnv): Record<string, Price> {
  try {
    return pricesFromEnv(env);
  } catch (error) {
    throw new EnvConfigError((error as Error).message);
  }
}

function readPrivateKey(inline: string | undefined, path: string | undefined): string {
  if (inline) {
    const text = inline.includes("-----BEGIN")
      ? inline.replaceAll("\\n", "\n")
      : Buffer.from(inline, "base64").toString("utf8");
    if (!text.includes("-----BEGIN") || !text.includes("PRIVATE KEY-----")) {
      throw new EnvConfigError(`PRIVATE_KEY is invalid (not a PEM private key): set it to ${ENV_HELP.PRIVATE_KEY}.`);
    }
    return text;
  }
  if (path) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw new EnvConfigError(
        `PRIVATE_KEY_PATH points to a file that cannot be read (${code}): set it to ${ENV_HELP.PRIVATE_KEY_PATH}.`,
      );
    }
    if (!text.includes("PRIVATE KEY-----")) {
      throw new EnvConfigError(
        `PRIVATE_KEY_PATH points to a file that is not a PEM private key: set it to ${ENV_HELP.PRIVATE_KEY_PATH}.`,
      );
    }
    return text;
  }
  throw new EnvConfigError(`PRIVATE_KEY is not set: set it to ${ENV_HELP.PRIVATE_KEY}.`);
}
