// The GitHub sign-in's roles over plain HTTP (the browser tests cover the member path):
// with AUTOGEN_DASHBOARD_ROLE=admin a member is refused and an owner admitted, an owner
// sees the organisation's jobs without a check per repository, the owner of a personal
// installation sees its jobs, and the cookies are Secure when the public URL is https.
import { createServer, type Server } from "node:http";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dashboardRoute } from "../../src/dashboard/dashboard-route.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import { SqliteJobHistory } from "../../src/ops/sqlite-job-history.ts";
import { fakeGitHubSignIn, type SignInFake } from "../support/fake-github-sign-in.ts";
import { networkGuard } from "../support/network-guard.ts";
import { testPrivateKey } from "../support/private-key.ts";

const CLIENT = { clientId: "Iv1.roles", clientSecret: "roles-client-secret" };
const network = networkGuard();
let history: SqliteJobHistory;
let store: JobStore;
let server: Server | undefined;
let signIn: SignInFake;

beforeAll(async () => {
  const path = join(await mkdtemp(join(tmpdir(), "autogen-roles-")), "jobs.db");
  store = new JobStore(path);
  for (const [owner, repo, title] of [
    ["octo-org", "private-repo", "Owner-only job"],
    ["solo-dev", "tool", "Personal job"],
    ["octo-org", "public-repo", "Open job"],
  ] as const) {
    store.enqueue({
      deliveryId: `d-${repo}`,
      installationId: 1,
      owner,
      repo,
      number: 1,
      kind: "fix",
      requester: "m",
      requesterId: 1,
      snapshot: { title, body: "" },
    });
  }
  history = new SqliteJobHistory(path);
});

afterAll(async () => {
  await history.close();
  store.close();
});

afterEach(async () => {
  if (server) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  const { unmatched } = network.stop();
  expect(unmatched).toEqual([]);
  expect(signIn.errors).toEqual([]);
});

async function start(role: "member" | "admin", publicUrl?: string): Promise<string> {
  network.start();
  signIn = fakeGitHubSignIn({
    ...CLIENT,
    installations: [
      { login: "octo-org", type: "Organization" },
      { login: "solo-dev", type: "User" },
    ],
    users: [
      { login: "owner", orgs: { "octo-org": "admin" }, repos: [] },
      { login: "member", orgs: { "octo-org": "member" }, repos: ["octo-org/public-repo"] },
      { login: "solo-dev", orgs: {}, repos: [] },
    ],
  });
  const probot = new Probot({ appId: 1, privateKey: testPrivateKey(), secret: "s", logLevel: "fatal" });
  server = createServer();
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const route = dashboardRoute({
    access: { mode: "github", ...CLIENT, publicUrl: publicUrl ?? base, role },
    history,
    probot,
    baseUrl: undefined,
  });
  server.on("request", (req, res) => {
    if (!route?.(req, res)) res.writeHead(404).end();
  });
  return base;
}

/** The browser's part of the sign-in, by hand: the state cookie kept, GitHub's consent answered with a code. */
async function signInAs(
  base: string,
  login: string,
): Promise<{ status: number; cookie: string; setCookies: string[] }> {
  const login1 = await fetch(`${base}/dashboard/auth/login`, { redirect: "manual" });
  const stateCookie = login1.headers.getSetCookie()[0] ?? "";
  const authorize = new URL(login1.headers.get("location") ?? "");
  const code = signIn.authorize(
    login,
    authorize.searchParams.get("code_challenge") ?? "",
    authorize.searchParams.get("redirect_uri") ?? "",
  );
  const callback = await fetch(
    `${base}/dashboard/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`,
    { redirect: "manual", headers: { cookie: stateCookie.split(";")[0] ?? "" } },
  );
  const setCookies = [stateCookie, ...callback.headers.getSetCookie()];
  const session = callback.headers.getSetCookie().find((c) => c.startsWith("autogen_session=")) ?? "";
  return { status: callback.status, cookie: session.split(";")[0] ?? "", setCookies };
}

describe("GitHub sign-in roles", () => {
  it("admin role: refuses a member, admits an owner who sees the organisation's jobs without a check per repository", async () => {
    const base = await start("admin");
    expect((await signInAs(base, "member")).status).toBe(403);
    const owner = await signInAs(base, "owner");
    expect(owner.status).toBe(303);
    const page = await (await fetch(`${base}/dashboard`, { headers: { cookie: owner.cookie } })).text();
    expect(page).toContain("Owner-only job");
    expect(page).toContain("Open job");
    expect(page).not.toContain("Personal job");
    expect(signIn.operations()).not.toContain("repos/get");
  });

  it("member role: a member sees what they can read; the owner of a personal installation sees its jobs", async () => {
    const base = await start("member");
    const member = await signInAs(base, "member");
    const page = await (await fetch(`${base}/dashboard`, { headers: { cookie: member.cookie } })).text();
    expect(page).toContain("Open job");
    expect(page).not.toContain("Owner-only job");
    const solo = await signInAs(base, "solo-dev");
    expect(solo.status).toBe(303);
    const soloPage = await (await fetch(`${base}/dashboard`, { headers: { cookie: solo.cookie } })).text();
    expect(soloPage).toContain("Personal job");
    expect(soloPage).not.toContain("Open job");
  });

  it("marks the cookies Secure when the public URL is https, and a code cannot be used twice", async () => {
    const base = await start("member", "https://bot.example.org");
    const owner = await signInAs(base, "owner");
    expect(owner.setCookies.length).toBeGreaterThanOrEqual(2);
    for (const cookie of owner.setCookies) expect(cookie).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });
});
