// `npm run bench:scrub`: the secret scrubber on 1 MB and 10 MB of hostile text (a hostile
// repository writes the logs and answers it scrubs), with four secrets of the shapes the bot
// holds. Prints wall and CPU time and the 10 MB / 1 MB ratio: about 10 for a linear scrubber.
// Figures only, no verdict: the machine may be shared.
import { randomBytes } from "node:crypto";
import { secretScrubber } from "../src/secrets/scrub-secrets.ts";
import { testPrivateKey } from "../test/support/private-key.ts";

const token = `ghs_${randomBytes(27).toString("base64url").slice(0, 36)}`;
const webhook = randomBytes(20).toString("hex");
const scrub = secretScrubber([token, `sk-proj-${randomBytes(36).toString("base64url")}`, webhook, testPrivateKey()]);

const repeat = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
const inputs: Array<[string, (bytes: number) => string]> = [
  ["random base64 lines", (n) => repeat(`${randomBytes(4096).toString("base64")}\n`, n)],
  ["one run of blanks", (n) => repeat(" ", n)],
  ["a separator after every character", (n) => repeat("a b-c.d e_f ", n)],
  ["nothing but \\u escapes", (n) => repeat("\\u0061\\u00e9", n)],
  ["backslashes and half escapes", (n) => repeat("\\\\u00\\x4\\u", n)],
  ["unclosed BEGIN lines", (n) => repeat("-----BEGIN RSA PRIVATE KEY-----\n", n)],
  ["the token less its last character, spaced, repeated", (n) => repeat(`${[...token.slice(0, -1)].join(" ")} `, n)],
  [
    "the webhook secret less one character, \\u-escaped, repeated",
    (n) => repeat([...webhook.slice(0, -1)].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join(""), n),
  ],
  ["line breaks and quotes", (n) => repeat("\"+\n'\r\n  ", n)],
];

function measure(text: string): { wallMs: number; cpuMs: number; changed: boolean } {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const out = scrub(text);
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000, changed: out !== text };
}

console.log(
  "input".padEnd(64),
  "1 MB cpu ms".padStart(12),
  "10 MB cpu ms".padStart(13),
  "ratio".padStart(6),
  "10 MB wall ms".padStart(14),
  "changed",
);
for (const [name, make] of inputs) {
  const small = measure(make(1_000_000));
  const large = measure(make(10_000_000));
  console.log(
    name.padEnd(64),
    small.cpuMs.toFixed(0).padStart(12),
    large.cpuMs.toFixed(0).padStart(13),
    (large.cpuMs / Math.max(small.cpuMs, 1)).toFixed(1).padStart(6),
    large.wallMs.toFixed(0).padStart(14),
    String(small.changed || large.changed),
  );
}
