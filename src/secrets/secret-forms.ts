// The strings a secret turns into when a program prints it encoded: each form appears
// verbatim in any text that carries the secret that way, so finding the secret becomes
// finding a literal. Forms shorter than MIN_FORM are left out: they would match everywhere.
export const MIN_FORM = 8;

/** Every form of this secret worth looking for (deduplicated, at least MIN_FORM chars). */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = new Set<string>([
    secret,
    [...secret].reverse().join(""),
    json,
    // Some encoders (PHP, some Java libraries) also escape the slash.
    json.replaceAll("/", "\\/"),
    encodeURIComponent(secret),
    // HTML forms and URLSearchParams: space as "+", and a few more characters escaped.
    new URLSearchParams({ s: secret }).toString().slice(2),
    percentEach(bytes).toUpperCase(),
    percentEach(bytes),
    bytes.toString("hex"),
    bytes.toString("hex").toUpperCase(),
    // The Basic header git sends for the installation token, whole, so the user name goes too.
    Buffer.from(`x-access-token:${secret}`).toString("base64"),
  ]);
  for (const form of base64Forms(bytes)) {
    forms.add(form);
    // Base64 inside a query string.
    forms.add(encodeURIComponent(form));
  }
  for (const form of pemForms(secret)) forms.add(form);
  return [...forms].filter((form) => form.length >= MIN_FORM);
}

function percentEach(bytes: Buffer): string {
  return bytes.toString("hex").replace(/../g, "%$&");
}

/**
 * Base64 and base64url of the secret wherever it sits in a longer payload (a password
 * after "user:", a token inside a JSON blob). A byte at offset 0, 1 or 2 mod 3 shifts every
 * character, so for each alignment we encode the secret behind that many filler bytes and
 * keep the characters built only from the secret's own bits: the first ones also carry
 * filler bits, the last one carries bits of whatever follows.
 */
function base64Forms(secret: Buffer): string[] {
  const forms: string[] = [];
  for (const filler of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(filler), secret]).toString("base64");
    const first = Math.ceil((filler * 8) / 6);
    const inner = encoded.slice(first, Math.floor(((filler + secret.length) * 8) / 6));
    // When the secret ends the payload its last character and padding are fixed too.
    const tail = encoded.slice(first);
    for (const form of [inner, tail, tail.replace(/=+$/, "")])
      forms.push(form, form.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return forms;
}

/** A PEM key also travels without its armour, or one line at a time. */
function pemForms(secret: string): string[] {
  if (!secret.includes("\n")) return [];
  const lines = secret.split(/\r?\n/).map((line) => line.trim());
  const body = lines.filter((line) => line && !line.startsWith("-----") && !line.includes(":"));
  return [body.join(""), ...body.filter((line) => line.length >= 32)];
}
