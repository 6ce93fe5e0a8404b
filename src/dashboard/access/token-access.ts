// Dashboard access by one shared token, for a deployment behind a reverse proxy that
// authenticates people itself: the proxy sends `Authorization: Bearer <token>`, or a
// person enters the token once and gets it back as an HttpOnly cookie.
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { html } from "../html.ts";
import { clearCookie, cookies, overHttps, readForm, redirect, sendPage, setCookie } from "./http-bits.ts";
import type { DashboardAccessPort } from "./viewer.ts";

export const TOKEN_COOKIE = "autogen_dashboard_token";

function same(given: string | undefined, token: string): boolean {
  const a = Buffer.from(given ?? "");
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function tokenForm(message: string) {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · autogen-bot</title></head><body><main><h1>autogen-bot dashboard</h1><p class="message">${message}</p>
<form method="post" action="/dashboard/auth/token"><label>Token <input type="password" name="token" autocomplete="current-password" required></label> <button type="submit">Sign in</button></form></main></body></html>`
    .text;
}

export function tokenAccess(token: string): DashboardAccessPort {
  const presented = (req: IncomingMessage) =>
    /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? cookies(req)[TOKEN_COOKIE];
  return {
    async viewer(req) {
      return same(presented(req), token)
        ? { name: undefined, canRead: async () => true, signOut: "/dashboard/auth/logout" }
        : undefined;
    },
    refuse(_req, res) {
      sendPage(res, 401, tokenForm("This dashboard needs its access token."), { "www-authenticate": "Bearer" });
    },
    async handleAuth(req, res, path) {
      if (path === "/dashboard/auth/token" && req.method === "POST") {
        const form = await readForm(req);
        if (!same(form?.get("token") ?? undefined, token)) {
          sendPage(res, 401, tokenForm("That token is not the dashboard's."));
          return true;
        }
        redirect(res, "/dashboard", {
          "set-cookie": setCookie(TOKEN_COOKIE, token, {
            path: "/dashboard",
            maxAgeSeconds: 8 * 3600,
            secure: overHttps(req),
          }),
        });
        return true;
      }
      if (path === "/dashboard/auth/logout" && req.method === "POST") {
        redirect(res, "/dashboard", { "set-cookie": clearCookie(TOKEN_COOKIE, "/dashboard", overHttps(req)) });
        return true;
      }
      return false;
    },
  };
}
