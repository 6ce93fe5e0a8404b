// The last step of GitHub's manifest flow: the one-time code GitHub handed the browser is
// exchanged (POST /app-manifests/{code}/conversions, no authentication) for the new App's
// id, private key, webhook secret and OAuth client credentials.
import { z } from "zod";

const conversion = z.object({
  id: z.number().int().positive(),
  slug: z.string().min(1),
  name: z.string().optional(),
  html_url: z.string(),
  pem: z.string().includes("PRIVATE KEY"),
  webhook_secret: z.string().nullable(),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
});

export type AppCredentials = z.infer<typeof conversion>;

export class ManifestConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestConversionError";
  }
}

export async function convertManifestCode(
  code: string,
  options: { apiUrl: string; fetch?: typeof fetch },
): Promise<AppCredentials> {
  if (!/^[\w-]{1,100}$/.test(code)) {
    throw new ManifestConversionError("the code GitHub sent back is not a manifest code");
  }
  const doFetch = options.fetch ?? fetch;
  const response = await doFetch(`${options.apiUrl}/app-manifests/${code}/conversions`, {
    method: "POST",
    headers: {
      accept: "application/vnd.github+json",
      "user-agent": "autogen-bot-setup",
      "x-github-api-version": "2022-11-28",
    },
  });
  if (!response.ok) {
    throw new ManifestConversionError(
      `GitHub answered ${response.status} to the manifest conversion` +
        " (codes are single-use and expire after an hour: create the App again)",
    );
  }
  const parsed = conversion.safeParse(await response.json());
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? "a field");
    throw new ManifestConversionError(`GitHub's answer to the manifest conversion lacks ${field}`);
  }
  return parsed.data;
}
