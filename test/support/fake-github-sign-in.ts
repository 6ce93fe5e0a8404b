// GitHub's side of the dashboard's sign-in, at the HTTP level (nock): the OAuth token
// exchange on the web host (the PKCE verifier must hash to the challenge the browser was
// sent with, the client secret and redirect URI must match), and the REST calls made with
// the user's token or as the App, each checked against GitHub's REST description.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import nock from "nock";
import { nockOn } from "./nock-on.ts";

type OperationSpec = { method: string; path: string; query: string[]; responses: string[] };
const spec = JSON.parse(readFileSync(new URL("../fixtures/github-rest/operations.json", import.meta.url), "utf8")) as {
  operations: Record<string, OperationSpec>;
};
const routes = Object.entries(spec.operations).map(([id, op]) => ({
  id,
  op,
  pattern: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, "([^/]+)")}$`),
}));

export type FakeUser = {
  login: string;
  /** Organisation memberships GitHub reports for this user: org → role. */
  orgs: Record<string, "admin" | "member">;
  /** Repositories (owner/repo) the user's token can read. */
  repos: string[];
};

export type SignInFake = {
  /** Called by the browser's stand-in for github.com/login/oauth/authorize: a code for `login`, bound to the challenge. */
  authorize: (login: string, challenge: string, redirectUri: string) => string;
  errors: string[];
  operations: () => string[];
};

export function fakeGitHubSignIn(options: {
  clientId: string;
  clientSecret: string;
  installations: Array<{ login: string; type: "Organization" | "User" }>;
  users: FakeUser[];
}): SignInFake {
  const errors: string[] = [];
  const seen: string[] = [];
  const codes = new Map<string, { login: string; challenge: string; redirectUri: string; used: boolean }>();
  const tokens = new Map<string, FakeUser>();
  let next = 1;
  nockOn();
  nock("https://github.com")
    .persist()
    .post("/login/oauth/access_token")
    .reply(async (request: Request) => {
      if (request.headers.get("accept") !== "application/json")
        errors.push("token exchange without Accept: application/json");
      const body = JSON.parse(await request.text()) as Record<string, string>;
      const grant = codes.get(body.code ?? "");
      if (body.client_id !== options.clientId || body.client_secret !== options.clientSecret)
        return [200, { error: "incorrect_client_credentials" }];
      if (!grant || grant.used) return [200, { error: "bad_verification_code" }];
      grant.used = true;
      if (body.redirect_uri !== grant.redirectUri) return [200, { error: "redirect_uri_mismatch" }];
      if (
        createHash("sha256")
          .update(body.code_verifier ?? "")
          .digest("base64url") !== grant.challenge
      )
        return [200, { error: "invalid_grant", error_description: "code_verifier does not match" }];
      const token = `ghu_fake${next++}`;
      const user = options.users.find((u) => u.login === grant.login);
      if (user) tokens.set(token, user);
      return [200, { access_token: token, token_type: "bearer", scope: "" }];
    });
  nock("https://api.github.com")
    .persist()
    .get(/.*/)
    .reply((request: Request) => {
      const url = new URL(request.url);
      const route = routes.find((r) => r.op.method === "GET" && r.pattern.test(url.pathname));
      if (!route) {
        errors.push(
          `GET ${url.pathname} is not an operation of GitHub's REST description (or not one the bot is known to call)`,
        );
        return [404, { message: "Not Found" }];
      }
      for (const key of url.searchParams.keys())
        if (!route.op.query.includes(key)) errors.push(`${route.id}: unknown query parameter "${key}"`);
      seen.push(route.id);
      const params = route.pattern.exec(url.pathname)?.slice(1).map(decodeURIComponent) ?? [];
      const auth = request.headers.get("authorization") ?? "";
      const user = tokens.get(auth.replace(/^(Bearer|token) /i, ""));
      const reply = ((): [number, unknown] => {
        switch (route.id) {
          case "apps/list-installations":
            // Asked as the App (a JWT), never with a user's token.
            if (user || !/^bearer ey/i.test(auth)) return [401, { message: "Bad credentials" }];
            return [
              200,
              options.installations.map((account, i) => ({
                id: 100 + i,
                account: { login: account.login, type: account.type },
              })),
            ];
          case "users/get-authenticated":
            return user ? [200, { login: user.login, id: 1 }] : [401, { message: "Bad credentials" }];
          case "orgs/get-membership-for-authenticated-user": {
            const role = user?.orgs[params[0] ?? ""];
            return role
              ? [200, { state: "active", role, organization: { login: params[0] } }]
              : [404, { message: "Not Found" }];
          }
          case "repos/get":
            return user?.repos.includes(`${params[0]}/${params[1]}`)
              ? [
                  200,
                  { full_name: `${params[0]}/${params[1]}`, permissions: { pull: true, push: false, admin: false } },
                ]
              : [404, { message: "Not Found" }];
          default:
            errors.push(`${route.id} is not expected from the dashboard`);
            return [404, { message: "Not Found" }];
        }
      })();
      if (!route.op.responses.includes(String(reply[0])))
        errors.push(`${route.id}: status ${reply[0]} is not a documented response`);
      return reply as [number, Record<string, unknown>];
    });
  return {
    authorize(login, challenge, redirectUri) {
      const code = `code-${next++}`;
      codes.set(code, { login, challenge, redirectUri, used: false });
      return code;
    },
    errors,
    operations: () => [...seen],
  };
}
