// The setup page `serve` opens when no GitHub App is configured, as Probot's does: a form
// that posts app.yml's manifest to GitHub's "new App" page; GitHub sends the browser back
// to /callback with a one-time code, which is exchanged for the App's credentials, saved
// to .env, and handed back so the server can start.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { html, type Html } from "../../dashboard/html.ts";
import { appManifest } from "./app-manifest.ts";
import { convertManifestCode, ManifestConversionError, type AppCredentials } from "./manifest-conversion.ts";
import { writeAppEnv } from "./write-app-env.ts";

export type SetupOptions = {
  host: string;
  port: number;
  /** https://github.com, or https://<GHE_HOST>. */
  webUrl: string;
  /** https://api.github.com, or https://<GHE_HOST>/api/v3. */
  apiUrl: string;
  /** Where webhooks will reach this server (AUTOGEN_PUBLIC_URL + WEBHOOK_PATH), when known. */
  webhookUrl: string | undefined;
  /** The folder .env and the key file are written to. */
  envDir: string;
  fetch?: typeof fetch;
};

export type SetupResult = { app: AppCredentials; envFile: string; keyFile: string; values: Record<string, string> };

export type SetupServer = { url: string; done: Promise<SetupResult>; close: () => Promise<void> };

const STYLE =
  "body{font:15px/1.5 system-ui,sans-serif;max-width:720px;margin:40px auto;padding:0 20px;color:#1f2328}" +
  "button{font:inherit;padding:8px 16px;background:#1f883d;color:#fff;border:0;border-radius:6px;cursor:pointer}" +
  "code,pre{background:#f6f8fa;padding:2px 4px;border-radius:4px}pre{padding:10px;overflow:auto;font-size:12px}" +
  ".muted{color:#59636e}input{font:inherit;padding:4px;width:16em}";

function page(title: string, body: Html): string {
  const head = html`<meta charset="utf-8"><title>${title} · autogen-bot setup</title><style>${STYLE}</style>`;
  return html`<!doctype html><html lang="en"><head>${head}</head>
<body><h1>${title}</h1>${body}</body></html>
`.text;
}

export async function startSetupServer(options: SetupOptions): Promise<SetupServer> {
  const state = randomBytes(16).toString("hex");
  let finish: (result: SetupResult) => void = () => {};
  const done = new Promise<SetupResult>((resolve) => (finish = resolve));
  let base = "";
  let converting = false;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base);
    const send = (status: number, body: string) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      res.end(body);
    };
    if (req.method === "GET" && url.pathname === "/") {
      const manifest = appManifest({ redirectUrl: `${base}/callback`, webhookUrl: options.webhookUrl });
      const org = url.searchParams.get("org")?.trim();
      const owner = org && /^[\w.-]{1,100}$/.test(org) ? `/organizations/${org}` : "";
      const target = `${options.webUrl}${owner}/settings/apps/new`;
      const perms = Object.entries(manifest.default_permissions)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ");
      const events = manifest.default_events.join(", ");
      const hook = options.webhookUrl
        ? html`Webhooks will go to <code>${options.webhookUrl}</code>.`
        : html`No public URL is set (AUTOGEN_PUBLIC_URL), so the App's webhook starts inactive:
set its URL in the App's settings once the server is reachable.`;
      return send(
        200,
        page(
          "Create your GitHub App",
          html`<p>No GitHub App is configured yet.
This creates one from <code>app.yml</code> (events: ${events}; permissions: ${perms}).
GitHub asks you to name it, then sends you back here,
and its id, private key and webhook secret are saved to <code>.env</code>.</p>
<form method="post" action="${target}?state=${state}">
<input type="hidden" name="manifest" value="${JSON.stringify(manifest)}">
<button type="submit">Create the GitHub App on ${new URL(options.webUrl).host}</button>
</form>
<p class="muted">For an organisation: <a href="/?org=your-org">/?org=your-org</a>. ${hook}
Or skip this page: set APP_ID, PRIVATE_KEY_PATH and WEBHOOK_SECRET yourself (.env.example, docs/deployment.md).</p>`,
        ),
      );
    }
    if (req.method === "GET" && url.pathname === "/callback") {
      const code = url.searchParams.get("code") ?? "";
      if (url.searchParams.get("state") !== state) {
        const body = html`<p>The state does not match the page this server showed. <a href="/">Start again</a>.</p>`;
        return send(400, page("This link is not from this setup", body));
      }
      if (converting) {
        return send(409, page("Already done", html`<p>The App is being saved; the server starts in a moment.</p>`));
      }
      converting = true;
      try {
        const conversion = { apiUrl: options.apiUrl, ...(options.fetch && { fetch: options.fetch }) };
        const app = await convertManifestCode(code, conversion);
        const saved = await writeAppEnv(options.envDir, app);
        const install = `${app.html_url}/installations/new`;
        const title = `The GitHub App ${app.slug} is created`;
        send(
          200,
          page(
            title,
            html`<p>Its credentials are saved in <code>${saved.envFile}</code>
(the private key in <code>${saved.keyFile}</code>, readable by you only). autogen-bot is starting with them now.</p>
<p>Next: <a href="${install}">install the App</a> on the repositories it should work on,
then label an issue <code>autogen</code>.</p>`,
          ),
        );
        finish({ app, ...saved });
      } catch (error) {
        converting = false;
        if (!(error instanceof ManifestConversionError)) throw error;
        const body = html`<p>${error.message}</p><p><a href="/">Start again</a>.</p>`;
        send(502, page("GitHub did not hand over the App", body));
      }
      return;
    }
    send(404, page("Not here", html`<p><a href="/">The setup page</a>.</p>`));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("setup failed: see the server's output");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  base = `http://${options.host === "0.0.0.0" || options.host === "::" ? "localhost" : options.host}:${port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: base, done, close };
}
