// A real RSA key made at test time, so no key is ever committed.
import { generateKeyPairSync } from "node:crypto";

let cached: string | undefined;
export function testPrivateKey(): string {
  cached ??= generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs1", format: "pem" })
    .toString();
  return cached;
}
