// The GitHub App manifest posted to GitHub's "new App" form: app.yml (the App's name,
// events and least permissions) plus where GitHub sends the browser back and the webhooks.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { z } from "zod";

export const APP_YML = fileURLToPath(new URL("../../../app.yml", import.meta.url));

const appYml = z.looseObject({
  name: z.string().min(1),
  url: z.string().optional(),
  description: z.string().optional(),
  public: z.boolean().optional(),
  hook_attributes: z.looseObject({ url: z.string() }).optional(),
  default_events: z.array(z.string()),
  default_permissions: z.record(z.string(), z.string()),
});

export type AppManifest = z.infer<typeof appYml> & {
  redirect_url: string;
  hook_attributes: { url: string; active?: boolean };
};

/** The manifest: app.yml with the redirect back to the setup page and the webhook URL (when known). */
type ManifestOptions = { redirectUrl: string; webhookUrl: string | undefined; file?: string };

export function appManifest(options: ManifestOptions): AppManifest {
  const parsed = appYml.safeParse(parse(readFileSync(options.file ?? APP_YML, "utf8")));
  if (!parsed.success) {
    const why = parsed.error.issues[0]?.message ?? "invalid";
    throw new Error(`${options.file ?? APP_YML} is not a GitHub App manifest: ${why}`);
  }
  const hook = options.webhookUrl
    ? { url: options.webhookUrl, active: true }
    : { url: parsed.data.hook_attributes?.url ?? "https://example.invalid/api/github/webhooks", active: false };
  return { ...parsed.data, redirect_url: options.redirectUrl, hook_attributes: hook };
}
