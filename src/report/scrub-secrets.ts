// Everything posted to GitHub or sent to the model passes through here first: the exact
// values of the secrets this process holds (raw, base64, URL-encoded) and the shapes of
// well-known tokens are replaced with a marker.
const TOKEN_SHAPES = [
  /\bgh[pousr]_[A-Za-z0-9]{20,255}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g,
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
];
const MARKER = "[secret removed]";

export type Scrubber = (text: string) => string;

/** A scrubber for these secret values (short values are ignored: they would match everywhere). */
export function secretScrubber(secrets: ReadonlyArray<string | undefined>): Scrubber {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < 8) continue;
    forms.add(secret);
    forms.add(Buffer.from(secret).toString("base64"));
    forms.add(Buffer.from(secret).toString("base64").replace(/=+$/, ""));
    forms.add(encodeURIComponent(secret));
    // A PEM key also travels one line at a time.
    for (const line of secret.split("\n")) if (line.length >= 32 && !line.startsWith("-----")) forms.add(line);
  }
  const exact = [...forms].sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text;
    for (const form of exact) out = out.split(form).join(MARKER);
    for (const shape of TOKEN_SHAPES) out = out.replace(shape, MARKER);
    return out;
  };
}

/** The secrets of this process, from its environment. */
export function processSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(env)
    .filter(([name]) => /KEY|TOKEN|SECRET|PASSWORD|PRIVATE/i.test(name))
    .map(([, value]) => value ?? "")
    .filter((v) => v.length >= 8);
}
