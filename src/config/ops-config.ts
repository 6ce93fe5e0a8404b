// The operator's windows, from the environment: /metrics (on unless turned off, optionally
// behind a bearer token) and the dashboard (off unless turned on, behind a token for a
// reverse proxy or behind GitHub sign-in with the App's OAuth client).
import { z } from "zod";
import { EnvConfigError } from "./env-config.ts";

export const OPS_ENV_HELP = {
  AUTOGEN_METRICS: "on (default) or off: serve /metrics in Prometheus's text format",
  AUTOGEN_METRICS_TOKEN:
    "a bearer token a scrape of /metrics must send (at least 16 characters); unset: /metrics is open",
  AUTOGEN_DASHBOARD:
    "off (default), token (a bearer token or cookie, for a reverse proxy) or github (sign-in with the App's OAuth client)",
  AUTOGEN_DASHBOARD_TOKEN: "the dashboard's token when AUTOGEN_DASHBOARD=token (at least 16 characters)",
  AUTOGEN_DASHBOARD_ROLE:
    "who may sign in when AUTOGEN_DASHBOARD=github: member (default: active members of an organisation the App is installed on) or admin (its owners only)",
  AUTOGEN_PUBLIC_URL:
    "the server's public base URL, e.g. https://autogen.example.org (the OAuth callback is <url>/dashboard/auth/callback)",
  GITHUB_CLIENT_ID: "the App's OAuth client id (the App's settings page) when AUTOGEN_DASHBOARD=github",
  GITHUB_CLIENT_SECRET: "the App's OAuth client secret when AUTOGEN_DASHBOARD=github",
} as const;

type OpsVar = keyof typeof OPS_ENV_HELP;
const token = z.string().min(16);

const schema = z.object({
  AUTOGEN_METRICS: z.enum(["on", "off"]).default("on"),
  AUTOGEN_METRICS_TOKEN: token.optional(),
  AUTOGEN_DASHBOARD: z.enum(["off", "token", "github"]).default("off"),
  AUTOGEN_DASHBOARD_TOKEN: token.optional(),
  AUTOGEN_DASHBOARD_ROLE: z.enum(["member", "admin"]).default("member"),
  AUTOGEN_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  GITHUB_CLIENT_ID: z.string().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().min(8).optional(),
} satisfies Record<OpsVar, z.ZodType>);

export type DashboardAccess =
  | { mode: "off" }
  | { mode: "token"; token: string }
  | { mode: "github"; clientId: string; clientSecret: string; publicUrl: string; role: "member" | "admin" };

export type OpsConfig = { metrics: { enabled: boolean; token: string | undefined }; dashboard: DashboardAccess };

export const DEFAULT_OPS_CONFIG: OpsConfig = {
  metrics: { enabled: true, token: undefined },
  dashboard: { mode: "off" },
};

function fail(name: OpsVar, given: string | undefined): never {
  const problem =
    given === undefined
      ? "is not set"
      : /TOKEN|SECRET/.test(name)
        ? "is invalid (hidden)"
        : `is invalid (got ${JSON.stringify(given.slice(0, 60))})`;
  throw new EnvConfigError(`${name} ${problem}: set it to ${OPS_ENV_HELP[name]}.`);
}

export function loadOpsConfig(env: NodeJS.ProcessEnv = process.env): OpsConfig {
  const values: Record<string, string> = {};
  for (const name of Object.keys(OPS_ENV_HELP)) {
    const value = env[name]?.trim();
    if (value) values[name] = value;
  }
  const parsed = schema.safeParse(values);
  if (!parsed.success) {
    const name = String(parsed.error.issues[0]?.path[0]) as OpsVar;
    fail(name, values[name]);
  }
  const e = parsed.data;
  const metrics = { enabled: e.AUTOGEN_METRICS === "on", token: e.AUTOGEN_METRICS_TOKEN };
  if (e.AUTOGEN_DASHBOARD === "off") return { metrics, dashboard: { mode: "off" } };
  if (e.AUTOGEN_DASHBOARD === "token") {
    if (!e.AUTOGEN_DASHBOARD_TOKEN) fail("AUTOGEN_DASHBOARD_TOKEN", undefined);
    return { metrics, dashboard: { mode: "token", token: e.AUTOGEN_DASHBOARD_TOKEN } };
  }
  if (!e.GITHUB_CLIENT_ID) fail("GITHUB_CLIENT_ID", undefined);
  if (!e.GITHUB_CLIENT_SECRET) fail("GITHUB_CLIENT_SECRET", undefined);
  if (!e.AUTOGEN_PUBLIC_URL) fail("AUTOGEN_PUBLIC_URL", undefined);
  return {
    metrics,
    dashboard: {
      mode: "github",
      clientId: e.GITHUB_CLIENT_ID,
      clientSecret: e.GITHUB_CLIENT_SECRET,
      publicUrl: e.AUTOGEN_PUBLIC_URL.replace(/\/+$/, ""),
      role: e.AUTOGEN_DASHBOARD_ROLE,
    },
  };
}
