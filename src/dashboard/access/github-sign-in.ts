// Dashboard access by GitHub sign-in through the App's own OAuth client (the web flow: a
// random state bound to the browser by a signed cookie, and a PKCE verifier). Only active
// members of an organisation the App is installed on get a session (with the `admin`
// role: its owners only; a personal installation admits its owner); a member sees the
// jobs of repositories GitHub says their user token can read (an owner: all of the
// organisation's). Sessions live in this process: the user token never reaches the
// browser, and a restart signs everyone out.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { clearCookie, cookies, redirect, sendPage, setCookie } from "./http-bits.ts";
import type { DashboardAccessPort, Viewer } from "./viewer.ts";
import { html } from "../html.ts";

export const SESSION_COOKIE = "autogen_session";
export const STATE_COOKIE = "autogen_oauth";
const SESSION_SECONDS = 8 * 3600;
const STATE_SECONDS = 600;
const REPO_CACHE_MS = 5 * 60_000;
const MAX_SESSIONS = 1000;

export type Installation = { login: string; type: "Organization" | "User" };

export type GitHubSignInOptions = {
  clientId: string;
  clientSecret: string;
  /** The server's public base URL (https in production: the cookies are then Secure). */
  publicUrl: string;
  role: "member" | "admin";
  /** GitHub's web and API base URLs (github.com, or a GitHub Enterprise Server host). */
  webUrl: string;
  apiUrl: string;
  /** The accounts the App is installed on (asked as the App). */
  installations: () => Promise<Installation[]>;
  fetch?: typeof fetch;
  log: { warn: (meta: object, message: string) => void; info: (meta: object, message: string) => void };
  now?: () => number;
};

type Session = {
  login: string;
  token: string;
  orgs: Map<string, "admin" | "member">;
  expires: number;
  repos: Map<string, { ok: boolean; at: number }>;
};

const tokenAnswer = z.union([
  z.object({ access_token: z.string().min(1) }),
  z.object({ error: z.string(), error_description: z.string().optional() }),
]);
const userAnswer = z.object({ login: z.string().min(1) });
const membershipAnswer = z.object({ state: z.string(), role: z.string() });
const repoAnswer = z.object({ permissions: z.object({ pull: z.boolean() }).partial().optional() });

const b64url = (bytes: Buffer) => bytes.toString("base64url");

export function githubSignIn(options: GitHubSignInOptions): DashboardAccessPort {
  const http = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const secure = options.publicUrl.startsWith("https://");
  const signingKey = randomBytes(32);
  const sessions = new Map<string, Session>();
  const callbackUrl = `${options.publicUrl}/dashboard/auth/callback`;
  const sign = (value: string) => `${value}.${b64url(createHmac("sha256", signingKey).update(value).digest())}`;
  const unsign = (signed: string | undefined): string | undefined => {
    if (!signed) return undefined;
    const dot = signed.lastIndexOf(".");
    if (dot < 0) return undefined;
    const value = signed.slice(0, dot);
    const expected = Buffer.from(sign(value));
    const given = Buffer.from(signed);
    return expected.length === given.length && timingSafeEqual(expected, given) ? value : undefined;
  };

  const api = async (path: string, token: string) =>
    http(`${options.apiUrl}${path}`, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/vnd.github+json",
        "x-github-api-version": "2022-11-28",
        "user-agent": "autogen-bot-dashboard",
      },
    });

  const sessionOf = (req: IncomingMessage): Session | undefined => {
    const id = unsign(cookies(req)[SESSION_COOKIE]);
    const session = id ? sessions.get(id) : undefined;
    if (!session || session.expires <= now()) return undefined;
    return session;
  };

  const canRead = (session: Session) => async (owner: string, repo: string) => {
    const role = session.orgs.get(owner.toLowerCase());
    if (!role) return false;
    if (role === "admin") return true;
    const key = `${owner}/${repo}`.toLowerCase();
    const cached = session.repos.get(key);
    if (cached && now() - cached.at < REPO_CACHE_MS) return cached.ok;
    const response = await api(`/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`, session.token);
    let ok = false;
    if (response.ok) {
      const parsed = repoAnswer.safeParse(await response.json());
      ok = parsed.success && parsed.data.permissions?.pull !== false;
    } else await response.body?.cancel();
    session.repos.set(key, { ok, at: now() });
    return ok;
  };

  const refusal = (res: Parameters<DashboardAccessPort["refuse"]>[1], status: number, message: string) =>
    sendPage(
      res,
      status,
      html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not signed in · autogen-bot</title></head><body><main><h1>autogen-bot dashboard</h1><p class="message">${message}</p><p><a href="/dashboard/auth/login">Sign in with GitHub</a></p></main></body></html>`
        .text,
      { "set-cookie": clearCookie(STATE_COOKIE, "/dashboard/auth", secure) },
    );

  /** The organisations (and personal account) this login may see, with the role there. */
  const memberships = async (login: string, token: string): Promise<Map<string, "admin" | "member">> => {
    const out = new Map<string, "admin" | "member">();
    for (const installation of await options.installations()) {
      if (installation.type === "User") {
        if (installation.login.toLowerCase() === login.toLowerCase()) out.set(login.toLowerCase(), "admin");
        continue;
      }
      const response = await api(`/user/memberships/orgs/${encodeURIComponent(installation.login)}`, token);
      if (!response.ok) {
        await response.body?.cancel();
        continue;
      }
      const parsed = membershipAnswer.safeParse(await response.json());
      if (!parsed.success || parsed.data.state !== "active") continue;
      const role = parsed.data.role === "admin" ? "admin" : "member";
      if (options.role === "admin" && role !== "admin") continue;
      out.set(installation.login.toLowerCase(), role);
    }
    return out;
  };

  return {
    async viewer(req): Promise<Viewer | undefined> {
      const session = sessionOf(req);
      return session
        ? { name: session.login, canRead: canRead(session), signOut: "/dashboard/auth/logout" }
        : undefined;
    },
    refuse(_req, res) {
      redirect(res, "/dashboard/auth/login");
    },
    async handleAuth(req, res, path) {
      if (path === "/dashboard/auth/login" && req.method === "GET") {
        const state = b64url(randomBytes(24));
        const verifier = b64url(randomBytes(32));
        const challenge = b64url(createHash("sha256").update(verifier).digest());
        const url = new URL(`${options.webUrl}/login/oauth/authorize`);
        url.search = new URLSearchParams({
          client_id: options.clientId,
          redirect_uri: callbackUrl,
          state,
          code_challenge: challenge,
          code_challenge_method: "S256",
          allow_signup: "false",
        }).toString();
        const cookie = sign(`${state}.${verifier}.${now() + STATE_SECONDS * 1000}`);
        res
          .writeHead(302, {
            location: url.toString(),
            "cache-control": "no-store",
            "set-cookie": setCookie(STATE_COOKIE, cookie, {
              path: "/dashboard/auth",
              maxAgeSeconds: STATE_SECONDS,
              secure,
            }),
          })
          .end();
        return true;
      }
      if (path === "/dashboard/auth/callback" && req.method === "GET") {
        const query = new URL(req.url ?? "", "http://local").searchParams;
        const [state, verifier, expires] = (unsign(cookies(req)[STATE_COOKIE]) ?? "").split(".");
        const given = Buffer.from(query.get("state") ?? "");
        const code = query.get("code");
        if (
          !state ||
          !verifier ||
          Number(expires) <= now() ||
          !code ||
          given.length !== Buffer.from(state).length ||
          !timingSafeEqual(given, Buffer.from(state))
        ) {
          options.log.warn({}, "dashboard sign-in refused: state missing, expired or not this browser's");
          refusal(
            res,
            400,
            "This sign-in link is not valid any more (or was not started in this browser). Sign in again.",
          );
          return true;
        }
        const exchanged = await http(`${options.webUrl}/login/oauth/access_token`, {
          method: "POST",
          headers: {
            accept: "application/json",
            "content-type": "application/json",
            "user-agent": "autogen-bot-dashboard",
          },
          body: JSON.stringify({
            client_id: options.clientId,
            client_secret: options.clientSecret,
            code,
            redirect_uri: callbackUrl,
            code_verifier: verifier,
          }),
        });
        const answer = tokenAnswer.safeParse(exchanged.ok ? await exchanged.json() : {});
        if (!answer.success || !("access_token" in answer.data)) {
          options.log.warn({ status: exchanged.status }, "dashboard sign-in: GitHub did not give a token");
          refusal(res, 502, "GitHub did not confirm the sign-in. Try again.");
          return true;
        }
        const token = answer.data.access_token;
        const userResponse = await api("/user", token);
        const user = userAnswer.safeParse(userResponse.ok ? await userResponse.json() : {});
        if (!user.success) {
          refusal(res, 502, "GitHub did not say who signed in. Try again.");
          return true;
        }
        const orgs = await memberships(user.data.login, token);
        if (orgs.size === 0) {
          options.log.info(
            { login: user.data.login },
            "dashboard sign-in refused: not a member of an installing organisation",
          );
          refusal(
            res,
            403,
            `${user.data.login} is not ${options.role === "admin" ? "an owner" : "a member"} of an organisation this App is installed on.`,
          );
          return true;
        }
        if (sessions.size >= MAX_SESSIONS)
          for (const [id, s] of sessions) if (s.expires <= now() || sessions.size >= MAX_SESSIONS) sessions.delete(id);
        const id = b64url(randomBytes(32));
        sessions.set(id, {
          login: user.data.login,
          token,
          orgs,
          expires: now() + SESSION_SECONDS * 1000,
          repos: new Map(),
        });
        options.log.info({ login: user.data.login, orgs: [...orgs.keys()] }, "dashboard sign-in");
        redirect(res, "/dashboard", {
          "set-cookie": [
            setCookie(SESSION_COOKIE, sign(id), { path: "/dashboard", maxAgeSeconds: SESSION_SECONDS, secure }),
            clearCookie(STATE_COOKIE, "/dashboard/auth", secure),
          ],
        });
        return true;
      }
      if (path === "/dashboard/auth/logout" && req.method === "POST") {
        const id = unsign(cookies(req)[SESSION_COOKIE]);
        if (id) sessions.delete(id);
        redirect(res, "/dashboard/auth/signed-out", {
          "set-cookie": clearCookie(SESSION_COOKIE, "/dashboard", secure),
        });
        return true;
      }
      if (path === "/dashboard/auth/signed-out" && req.method === "GET") {
        refusal(res, 200, "Signed out.");
        return true;
      }
      return false;
    },
  };
}
