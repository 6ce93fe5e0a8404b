// `serve` with no App configured: the setup page creates the App from app.yml through
// GitHub's manifest flow, end to end over HTTP. The browser's part is played by the test
// (it reads the form the page shows, and follows GitHub's redirect back with the code);
// GitHub's part, POST /app-manifests/{code}/conversions, by the fake GitHub in the child.
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { testPrivateKey } from "../support/private-key.ts";
import { ROOT } from "../support/run-cli.ts";
import { BARE_STATE, serveChild } from "../support/serve-child.ts";

const CREATED = {
  id: 4242,
  slug: "autogen-bot-for-acme",
  name: "autogen-bot for acme",
  html_url: "https://github.com/apps/autogen-bot-for-acme",
  pem: testPrivateKey(),
  webhook_secret: "6f0d1c2b3a49586776a5b4c3d2e1f0aa",
  client_id: "Iv23liAbCdEf012345",
  client_secret: "0123456789abcdef0123456789abcdef01234567",
};

const ENTITIES: Record<string, string> = {
  "&quot;": '"',
  "&#39;": "'",
  "&lt;": "<",
  "&gt;": ">",
  "&#96;": "`",
  "&amp;": "&",
};
const unescape = (s: string) => s.replace(/&(quot|#39|lt|gt|#96|amp);/g, (e) => ENTITIES[e] ?? e);

describe("serve with no App configured", () => {
  const flow = "setup page → GitHub's new-App form → code → conversion → .env → the App running";
  it(`${flow}; a second start reads .env`, async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-setup-"));
    await writeFile(join(dir, ".env"), "# mine\nLOG_LEVEL=fatal\n");
    const fake = { ...BARE_STATE, manifestConversions: { "code-from-github": CREATED } };
    const serve = await serveChild({ cwd: dir, tag: "first", state: fake });
    const base = (await serve.waitFor(/open (http:\/\/127\.0\.0\.1:\d+) to create one from app\.yml/))[1] ?? "";

    // The page: a form posting app.yml's manifest to GitHub, with a state to check on return.
    const pageHtml = await (await fetch(`${base}/`)).text();
    const action = unescape(/<form method="post" action="([^"]+)"/.exec(pageHtml)?.[1] ?? "");
    const state = /^https:\/\/github\.com\/settings\/apps\/new\?state=([0-9a-f]{32})$/.exec(action)?.[1];
    expect(state).toBeDefined();
    const field = /name="manifest" value="([^"]+)"/.exec(pageHtml)?.[1] ?? "{}";
    const manifest = JSON.parse(unescape(field)) as Record<string, unknown>;
    const appYml = parse(readFileSync(join(ROOT, "app.yml"), "utf8")) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: appYml.name,
      default_events: appYml.default_events,
      default_permissions: appYml.default_permissions,
      redirect_url: `${base}/callback`,
    });
    expect(manifest.hook_attributes).toMatchObject({ active: false });
    expect((await fetch(`${base}/?org=acme`)).ok).toBe(true);
    const forOrg = await (await fetch(`${base}/?org=acme`)).text();
    expect(forOrg).toContain('action="https://github.com/organizations/acme/settings/apps/new?state=');

    // A redirect not from this page's form, then a code GitHub does not know: nothing saved.
    const forged = await fetch(`${manifest.redirect_url as string}?code=code-from-github&state=${"0".repeat(32)}`);
    expect(forged.status).toBe(400);
    const unknown = await fetch(`${manifest.redirect_url as string}?code=expired-code&state=${state}`);
    expect(unknown.status).toBe(502);
    expect(await unknown.text()).toContain("GitHub answered 404 to the manifest conversion");
    expect(readFileSync(join(dir, ".env"), "utf8")).toBe("# mine\nLOG_LEVEL=fatal\n");

    // GitHub sends the browser back with the code.
    const back = await fetch(`${manifest.redirect_url as string}?code=code-from-github&state=${state}`);
    expect(back.status).toBe(200);
    const done = await back.text();
    expect(done).toContain("The GitHub App autogen-bot-for-acme is created");
    expect(done).toContain('href="https://github.com/apps/autogen-bot-for-acme/installations/new"');

    // Then the App starts with the new credentials.
    await serve.waitFor(/created the GitHub App autogen-bot-for-acme \(id 4242\)/);
    const running = (await serve.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? "";
    const health = await fetch(`${running}/healthz`);
    expect(health.status).toBe(200);

    const env = readFileSync(join(dir, ".env"), "utf8");
    const keyFile = join(dir, "autogen-bot-for-acme.private-key.pem");
    expect(env.startsWith("# mine\nLOG_LEVEL=fatal\n")).toBe(true);
    expect(env).toContain('APP_ID="4242"\n');
    expect(env).toContain(`PRIVATE_KEY_PATH="${keyFile}"\n`);
    expect(env).toContain(`WEBHOOK_SECRET="${CREATED.webhook_secret}"\n`);
    expect(env).toContain(`GITHUB_CLIENT_ID="${CREATED.client_id}"\n`);
    expect(env).not.toContain("PRIVATE KEY");
    expect(readFileSync(keyFile, "utf8")).toBe(CREATED.pem);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    const first = await serve.stop();
    expect(first.github.errors).toEqual([]);
    expect(first.github.unmatched).toEqual([]);
    const conversions = first.github.requests.filter((r) => r.operation === "apps/create-from-manifest");
    expect(conversions.map((r) => r.path)).toEqual([
      "/app-manifests/expired-code/conversions",
      "/app-manifests/code-from-github/conversions",
    ]);

    // Started again from the same folder: configured by .env, no setup page.
    const again = await serveChild({ cwd: dir, tag: "again", state: BARE_STATE });
    const url = (await again.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? "";
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(again.output().stdout).not.toContain("No GitHub App is configured");
    const second = await again.stop();
    expect(second.github.errors).toEqual([]);
    expect(existsSync(join(dir, ".env"))).toBe(true);
  });
});
