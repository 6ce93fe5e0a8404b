// Saves a new App's credentials where `serve` reads them next time: the private key in a
// file of its own (mode 0600) and APP_ID, PRIVATE_KEY_PATH, WEBHOOK_SECRET and the OAuth
// client in .env, replacing those keys and keeping every other line.
import { existsSync, readFileSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AppCredentials } from "./manifest-conversion.ts";

export type SavedApp = { envFile: string; keyFile: string; values: Record<string, string> };

export async function writeAppEnv(dir: string, app: AppCredentials): Promise<SavedApp> {
  const keyFile = join(dir, `${app.slug.replace(/[^\w-]/g, "_")}.private-key.pem`);
  await writeFile(keyFile, app.pem, { mode: 0o600 });
  await chmod(keyFile, 0o600);
  const values: Record<string, string> = {
    APP_ID: String(app.id),
    PRIVATE_KEY_PATH: keyFile,
    GITHUB_CLIENT_ID: app.client_id,
    GITHUB_CLIENT_SECRET: app.client_secret,
  };
  if (app.webhook_secret) values.WEBHOOK_SECRET = app.webhook_secret;
  const envFile = join(dir, ".env");
  const kept = existsSync(envFile)
    ? readFileSync(envFile, "utf8")
        .split("\n")
        .filter((line) => !Object.keys(values).some((k) => line.startsWith(`${k}=`)))
    : ["# autogen-bot server environment (see .env.example); never commit it."];
  while (kept.at(-1) === "") kept.pop();
  const added = Object.entries(values).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const note = `# The GitHub App ${app.slug}, created from app.yml by the setup page`;
  await writeFile(envFile, `${[...kept, note, ...added].join("\n")}\n`, { mode: 0o600 });
  return { envFile, keyFile, values };
}
