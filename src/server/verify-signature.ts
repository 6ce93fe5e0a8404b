// GitHub's X-Hub-Signature-256: an HMAC-SHA256 of the raw body bytes, compared in
// constant time.
import { createHmac, timingSafeEqual } from "node:crypto";

export function signatureMatches(secret: string, body: Buffer, header: string | undefined): boolean {
  if (!header || !/^sha256=[0-9a-f]{64}$/i.test(header)) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  const given = Buffer.from(header.slice("sha256=".length), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
