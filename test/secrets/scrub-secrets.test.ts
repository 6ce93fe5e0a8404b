import { randomBytes, randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { processSecrets, secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { testPrivateKey } from "../support/private-key.ts";

const MARKER = "[secret removed]";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join("");

// Made fresh on every run, so nothing here is a real secret and no expected output is written down.
const secrets = {
  installationToken: `ghs_${pick(ALNUM, 36)}`,
  openAiKey: `sk-proj-${pick(`${ALNUM}-_`, 48)}`,
  // No known shape: only the scrubber's knowledge of the value can catch it.
  webhookSecret: randomBytes(20).toString("hex"),
  privateKey: testPrivateKey(),
};
const scrub = secretScrubber(Object.values(secrets));

const b64 = (text: string) => Buffer.from(text).toString("base64");
const b64url = (text: string) => Buffer.from(text).toString("base64url");
const hex = (text: string) => Buffer.from(text).toString("hex");
const chunks = (text: string, size: number) => text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];
/** JSON/JS escapes for the characters chosen (\uXXXX, or \xXX for one byte when `x`); a line break stays JSON's \n. */
const uEscape = (text: string, chosen: (i: number) => boolean, upper: boolean, x = false) =>
  [...text]
    .map((c, i) => {
      if (c === "\n") return "\\n";
      if (!chosen(i) || c.charCodeAt(0) > 0xffff) return c === "\\" || c === '"' ? `\\${c}` : c;
      const code = c
        .charCodeAt(0)
        .toString(16)
        .padStart(x && c.charCodeAt(0) < 256 ? 2 : 4, "0");
      const escaped = x && c.charCodeAt(0) < 256 ? `\\x${code}` : `\\u${code}`;
      return upper ? escaped.toUpperCase().replace("\\U", "\\u").replace("\\X", "\\x") : escaped;
    })
    .join("");

/** An encoding of a secret, and the surrounding text a program would print it in. */
type Encoding = { name: string; encode: (secret: string) => string; before: string; after: string };
const encodings: Encoding[] = [
  {
    name: "raw in a log line",
    encode: (s) => s,
    before: "2024-05-01T10:00:00Z [info] using credential ",
    after: " for upload\n",
  },
  { name: "base64 in a shell export", encode: b64, before: "export SECRET_B64=", after: "\necho done" },
  {
    name: "base64 without padding in JSON",
    encode: (s) => b64(s).replace(/=+$/, ""),
    before: '{"data":"',
    after: '","ok":true}',
  },
  {
    name: "base64 at offset 1 of a longer blob",
    encode: (s) => b64(`a${s}-trailer`),
    before: "blob=",
    after: " size=1",
  },
  {
    name: "base64 at offset 2 of a longer blob",
    encode: (s) => b64(`ab${s}+more bytes`),
    before: "payload: ",
    after: "\n",
  },
  {
    name: "base64 at offset 0 after a 3-byte header",
    encode: (s) => b64(`hdr${s}z`),
    before: "X-Data: ",
    after: "\r\n",
  },
  {
    name: "base64url at offset 1, unpadded, in a URL",
    encode: (s) => b64url(`{"k":"${s}"}`),
    before: "https://example.com/cb?state=",
    after: "&x=1",
  },
  { name: "base64url of the value alone", encode: b64url, before: "token=", after: "; path=/" },
  { name: "hex", encode: hex, before: "dump: ", after: " (end)" },
  { name: "hex, upper case", encode: (s) => hex(s).toUpperCase(), before: "DUMP ", after: " OK" },
  {
    name: "encodeURIComponent in a URL",
    encode: encodeURIComponent,
    before: "https://example.com/hook?secret=",
    after: "&retry=2",
  },
  {
    name: "every byte %XX",
    encode: (s) => hex(s).replace(/../g, "%$&").toUpperCase(),
    before: "GET /?k=",
    after: " HTTP/1.1",
  },
  {
    name: "form-urlencoded",
    encode: (s) => new URLSearchParams({ k: s }).toString().slice(2),
    before: "body: k=",
    after: "&submit=1",
  },
  { name: "JSON-escaped", encode: (s) => JSON.stringify(s).slice(1, -1), before: '{"env":{"VALUE":"', after: '"}}' },
  {
    name: "Basic header of x-access-token in a git trace",
    encode: (s) => b64(`x-access-token:${s}`),
    before: "12:00:00.000000 http.c:756 => Send header: Authorization: Basic ",
    after: "\n12:00:00.000001 http.c:756 => Send header: Accept: */*",
  },
  {
    name: "Basic header with a 4-char user (offset 2)",
    encode: (s) => b64(`user:${s}`),
    before: "Authorization: Basic ",
    after: "\nHost: github.com",
  },
  {
    name: "Basic header with a 3-char user (offset 1)",
    encode: (s) => b64(`bot:${s}`),
    before: "curl -H 'Authorization: Basic ",
    after: "' https://api.github.com",
  },
  {
    name: "Basic header of x-access-token, base64 folded at 60 columns",
    encode: (s) => chunks(b64(`x-access-token:${s}`), 60).join("\n"),
    before: "Authorization: Basic ",
    after: "\nok",
  },
  {
    name: "base64url of user:secret (offset 2), unpadded",
    encode: (s) => b64url(`user:${s}`),
    before: "cookie=",
    after: "; Secure",
  },
  { name: "reversed", encode: (s) => [...s].reverse().join(""), before: "rev: ", after: " :ver" },
  { name: "a space between every character", encode: (s) => [...s].join(" "), before: "spelled: ", after: " (done)" },
  { name: "a dash between every character", encode: (s) => [...s].join("-"), before: "id=", after: "&x=1" },
  {
    name: "a different separator between each pair of characters",
    encode: (s) => [...s].map((c, i) => c + ".,;|_~"[i % 6]).join(""),
    before: "k:",
    after: "\nend",
  },
  {
    name: "several blanks and line breaks between every character",
    encode: (s) => [...s].join(" \t\n  "),
    before: "vertical:\n",
    after: "\n(end)",
  },
  { name: "hex dump in pairs", encode: (s) => chunks(hex(s), 2).join(" "), before: "00000000: ", after: "  |....|" },
  {
    name: "every character \\u-escaped, lower-case hex",
    encode: (s) => uEscape(s, () => true, false),
    before: '{"v":"',
    after: '"}',
  },
  {
    name: "every character \\u-escaped, upper-case hex",
    encode: (s) => uEscape(s, () => true, true),
    before: "'",
    after: "'",
  },
  {
    name: "every other character \\u-escaped",
    encode: (s) => uEscape(s, (i) => i % 2 === 0, false),
    before: 'x = "',
    after: '";',
  },
  {
    name: "a random mix of \\u-escaped and plain characters",
    encode: (s) => uEscape(s, () => randomInt(2) === 0, randomInt(2) === 0),
    before: '{"env":"',
    after: '"}',
  },
  {
    name: "\\x-escaped characters",
    encode: (s) => uEscape(s, (i) => i % 3 !== 1, false, true),
    before: "b'",
    after: "'",
  },
  {
    name: "split across lines",
    encode: (s) => chunks(s, 20).join("\n"),
    before: "value follows\n",
    after: "\nvalue ended",
  },
  {
    name: "split across indented lines with CRLF",
    encode: (s) => chunks(s, 16).join("\r\n    "),
    before: "key: |\r\n    ",
    after: "\r\nnext: 1",
  },
  {
    name: "split into concatenated string literals",
    encode: (s) =>
      chunks(s, 12)
        .map((c) => JSON.stringify(c))
        .join(" +\n    "),
    before: "const value =\n    ",
    after: ";\nconsole.log(value);",
  },
  {
    name: "base64 folded at 76 columns",
    encode: (s) => chunks(b64(`prefix:${s}`), 76).join("\n"),
    before: "$ base64 creds.txt\n",
    after: "\n$ echo ok",
  },
  {
    name: "split across timestamped Actions log lines",
    encode: (s) => chunks(s, 10).join("\n2024-05-01T10:00:01.1234567Z "),
    before: "2024-05-01T10:00:01.1234567Z ",
    after: "\n2024-05-01T10:00:02.0000000Z Done",
  },
];

const cases = Object.entries(secrets).flatMap(([secretName, secret]) =>
  encodings.map((encoding) => ({
    title: `${secretName}, ${encoding.name}`,
    secret,
    ...encoding,
    text: encoding.before + encoding.encode(secret) + encoding.after,
  })),
);

/**
 * Every 12-char window of the secret, raw and in the encodings a reader would decode. A PEM's
 * armour lines ("-----BEGIN RSA PRIVATE KEY-----") are the same in every key, so windows
 * wholly inside them are not part of the secret.
 */
function recognisableParts(secret: string): Set<string> {
  const armour = secret.split("\n").filter((line) => line.startsWith("-----"));
  const forms = [
    secret,
    [...secret].reverse().join(""),
    hex(secret),
    hex(secret).toUpperCase(),
    hex(secret).replace(/../g, "%$&").toUpperCase(),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
  ];
  for (const filler of ["", "a", "ab"]) {
    // Only the characters made from the secret's own bits, not from the filler or what follows.
    const inner = b64(filler + secret).slice(
      Math.ceil((filler.length * 8) / 6),
      Math.floor(((filler.length + Buffer.byteLength(secret)) * 8) / 6),
    );
    forms.push(inner, inner.replaceAll("+", "-").replaceAll("/", "_"));
  }
  const windows = new Set<string>();
  for (const form of forms) for (let i = 0; i + 12 <= form.length; i++) windows.add(form.slice(i, i + 12));
  for (const window of windows) if (armour.some((line) => line.includes(window))) windows.delete(window);
  return windows;
}

const partsOf = new Map(Object.values(secrets).map((secret) => [secret, recognisableParts(secret)]));

/**
 * The recognisable parts left in a text, also once its line breaks and string concatenation
 * are undone, its \u and \x escapes decoded, its whitespace dropped, or read every other character.
 */
function leftovers(text: string, secret: string): string[] {
  const parts = partsOf.get(secret) ?? new Set();
  const joined = text.replace(/["']?[ \t]*\+?[ \t]*(?:\r?\n)(?:\d{4}-\d\d-\d\dT[\d:.]+Z )?[ \t]*["']?/g, "");
  const decoded = text.replace(
    /\\u([0-9a-f]{4})|\\x([0-9a-f]{2})|\\(["\\/])/gi,
    (_, u?: string, x?: string, c?: string) => c ?? String.fromCharCode(Number.parseInt(u ?? x ?? "", 16)),
  );
  const compact = text.replace(/\s+/g, "");
  const strided = [0, 1].map((parity) => [...text].filter((_, i) => i % 2 === parity).join(""));
  const found = new Set<string>();
  for (const view of [text, joined, decoded, compact, ...strided]) {
    for (let i = 0; i + 12 <= view.length; i++) if (parts.has(view.slice(i, i + 12))) found.add(view.slice(i, i + 12));
  }
  return [...found];
}

/** Wall and CPU time: the machine running the tests may be shared, so wall time alone misleads. */
function startTimer(): () => string {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return `${(performance.now() - wall).toFixed(0)} ms (${((used.user + used.system) / 1000).toFixed(0)} ms CPU)`;
  };
}

describe("secret scrubber: encoded forms", () => {
  it("the corpus covers at least 30 encodings of 4 secrets", () => {
    expect(Object.keys(secrets)).toHaveLength(4);
    expect(cases.length).toBeGreaterThanOrEqual(30);
    // Sanity check of the checker: unscrubbed, every case shows part of its secret.
    expect(cases.filter((c) => leftovers(c.text, c.secret).length === 0).map((c) => c.title)).toEqual([]);
  });

  it.each(cases)(
    "$title: nothing recognisable passes, the text around it survives",
    ({ text, secret, before, after }) => {
      const out = scrub(text);
      expect(leftovers(out, secret)).toEqual([]);
      expect(out.startsWith(before)).toBe(true);
      expect(out.endsWith(after)).toBe(true);
      expect(out.slice(before.length, out.length - after.length)).toContain(MARKER);
    },
  );

  it("all the encodings of all the secrets in one text: none passes", () => {
    const out = scrub(cases.map((c) => c.text).join("\n----\n"));
    for (const secret of Object.values(secrets)) expect(leftovers(out, secret)).toEqual([]);
    expect(out.split("\n----\n")).toHaveLength(cases.length);
  });
});

describe("secret scrubber: no false positives", () => {
  it("ordinary text is unchanged", () => {
    const ordinary = [
      "password: must be at least 8 characters; set GITHUB_TOKEN or WEBHOOK_SECRET in .env",
      "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)",
      `integrity sha512-${b64(randomBytes(64).toString("binary"))}`,
      "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
      'const total = "abc" +\n  "def";\n+ added line\n- removed line',
      "https://example.com/a%20b?x=%2F&y=1 and a task-runner-for-everything-you-need",
      "  at Object.<anonymous> (/home/runner/work/app/app/src/index.test.ts:12:7)",
      `${"=".repeat(80)}\n${" ".repeat(40)}\\n\\r\\n\n\n`,
      // Spread-out, escaped and encoded text that is not a secret.
      "H e l l o ,   w o r l d !   t-h-i-s-i-s-a-b-a-n-n-e-r",
      '{"name":"caf\\u00e9 \\u00FCber","path":"C:\\\\Users\\\\x41","re":"\\x41\\x42\\d+"}',
      `00000000: ${chunks(randomBytes(32).toString("hex"), 4).join(" ")}  |................|`,
      `Authorization: Basic ${b64(`x-access-token:ghs_${pick(ALNUM, 36)}`)}`,
      `Authorization: Basic ${b64(`user:${randomBytes(20).toString("hex")}`)}`,
    ].join("\n");
    expect(scrub(ordinary)).toBe(ordinary);
  });

  it("a value one character away from a secret is left alone", () => {
    const secret = secrets.webhookSecret;
    const middle = secret.length >> 1;
    const nearMiss = secret.slice(0, middle) + (secret[middle] === "0" ? "1" : "0") + secret.slice(middle + 1);
    expect(scrub(`sig=${nearMiss}`)).toBe(`sig=${nearMiss}`);
  });

  it("a near miss (one character changed) spread out, escaped or in a Basic header is left alone", () => {
    for (const secret of [secrets.installationToken, secrets.openAiKey, secrets.webhookSecret]) {
      const middle = secret.length >> 1;
      const nearMiss = secret.slice(0, middle) + (secret[middle] === "A" ? "B" : "A") + secret.slice(middle + 1);
      const texts = [
        [...nearMiss].join(" "),
        [...nearMiss].join("-"),
        [...nearMiss].join(" \t "),
        uEscape(nearMiss, () => true, false),
        uEscape(nearMiss, (i) => i % 2 === 1, true),
        `Authorization: Basic ${b64(`x-access-token:${nearMiss}`)}`,
        `Authorization: Basic ${b64(`user:${nearMiss}`)}`,
        b64url(`bot:${nearMiss}`),
      ];
      for (const text of texts) expect(scrub(text)).toBe(text);
    }
  });

  it("secrets shorter than 8 characters are ignored", () => {
    const short = secretScrubber(["abc1234", undefined, ""]);
    expect(short("abc1234 YWJjMTIzNA== 61626331323334")).toBe("abc1234 YWJjMTIzNA== 61626331323334");
  });

  it("a clean 5 MB CI log passes unchanged", () => {
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 5_000_000; i++) {
      const line = [
        `2024-05-01T10:${String(i % 60).padStart(2, "0")}:00.${String(i).padStart(7, "0")}Z PASS src/module-${i % 97}.test.ts (${i % 300} ms)`,
        `2024-05-01T10:00:00.0000000Z   sha ${randomBytes(20).toString("hex")} "value" + "other" {"ok":true,"n":${i}}`,
        `2024-05-01T10:00:00.0000000Z ${b64(randomBytes(30).toString("binary"))} https://example.com/?q=a%2Fb`,
        "",
      ][i % 4] as string;
      lines.push(line);
      size += line.length + 1;
    }
    const log = lines.join("\n");
    const timer = startTimer();
    const out = scrub(log);
    console.log(`scrubbed a clean ${(log.length / 1e6).toFixed(1)} MB log in ${timer()}`);
    expect(out === log).toBe(true);
  });
});

describe("secret scrubber: hostile text stays linear", () => {
  // Untrusted code writes the CI log. Each of these made an earlier pattern quadratic
  // (a lazy BEGIN…END scan, /[ \t]*\n/ on long blanks) or blew the regex stack.
  it.each([
    ["unclosed BEGIN lines", "-----BEGIN RSA PRIVATE KEY-----\n".repeat(125_000)],
    ["one long run of blanks", `${" ".repeat(4_000_000)}x`],
    ["nothing but line breaks", "\n".repeat(4_000_000)],
    ["a separator every few characters", " \t'+\n".repeat(800_000)],
  ])("%s: scrubbed unchanged", (name, text) => {
    const timer = startTimer();
    expect(scrub(text) === text).toBe(true);
    console.log(`${name}: ${(text.length / 1e6).toFixed(1)} MB in ${timer()}`);
  });
});

describe("processSecrets", () => {
  it("takes the secrets this process holds and leaves paths and counts alone", () => {
    const env = {
      PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----x",
      WEBHOOK_SECRET: "webhook-secret-value",
      GITHUB_TOKEN: "ghs_0123456789abcdef",
      OPENAI_API_KEY: "sk-0123456789abcdef",
      AUTOGEN_LLM_KEY: "llm-key-0123456789",
      AUTOGEN_SEARCH_API_KEY: "search-key-0123456789",
      DB_PASSWORD: "db-password-value",
      SHORT_TOKEN: "short",
      PRIVATE_KEY_PATH: "/etc/autogen/key.pem",
      AUTOGEN_MAX_TOKENS: "100000000",
      PATH: "/usr/local/bin:/usr/bin",
      HOME: "/home/autogen",
    };
    expect(processSecrets(env).sort()).toEqual(
      [
        env.PRIVATE_KEY,
        env.WEBHOOK_SECRET,
        env.GITHUB_TOKEN,
        env.OPENAI_API_KEY,
        env.AUTOGEN_LLM_KEY,
        env.AUTOGEN_SEARCH_API_KEY,
        env.DB_PASSWORD,
      ].sort(),
    );
  });
});

describe("secret scrubber: secrets learned at run time", () => {
  it("scrubs an installation token minted after it was built, in its Basic-header form too", () => {
    const scrub = secretScrubber(["whsec-0123456789abcdef"]);
    const token = "ghs_runtimeMinted0123456789ABCDEFabcd";
    const header = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
    expect(scrub(`trace: ${header}`)).toContain(Buffer.from(`x-access-token:${token}`).toString("base64").slice(8, 30));
    scrub.add?.(token);
    const out = scrub(`trace: ${header}`);
    expect(out).not.toContain(Buffer.from(`x-access-token:${token}`).toString("base64").slice(8, 30));
    expect(out).toContain("[secret removed]");
  });
});
