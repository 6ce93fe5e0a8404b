// The dashboard in a real headless Chromium (Debian's package, driven by playwright-core)
// on a server seeded by real jobs, behind GitHub sign-in: GitHub's OAuth and REST answers
// faked at the HTTP level (the browser's visit to github.com/login/oauth/authorize is
// answered by the test, as GitHub would after the user consents). A screenshot of the
// overview is written to test-artifacts/.
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import nock from "nock";
import { chromium, type Browser, type BrowserContext, type Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpsConfig } from "../../src/config/ops-config.ts";
import { SqliteJobHistory } from "../../src/ops/sqlite-job-history.ts";
import { fakeGitHubSignIn, type SignInFake } from "../support/fake-github-sign-in.ts";
import { networkGuard } from "../support/network-guard.ts";
import { parseMetrics, value } from "../support/prometheus-text.ts";
import {
  CHECK_RUN_URL,
  HOSTILE_TITLE,
  ISSUE,
  SECRET_CANARY,
  seededServer,
  type SeededServer,
} from "../support/seeded-server.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url);
const CLIENT = { clientId: "Iv1.dashboardtest", clientSecret: "dashboard-client-secret" };
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(
    `skipped: the dashboard's browser tests need Debian's chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it when it can)`,
  );

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const network = networkGuard();
let seeded: SeededServer;
let seedErrors: string[] = [];
let signIn: SignInFake;
let browser: Browser;
let base: string;
const dialogs: string[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  network.start();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const ops: OpsConfig = {
    metrics: { enabled: true, token: undefined },
    dashboard: { mode: "github", ...CLIENT, publicUrl: base, role: "member" },
  };
  seeded = await seededServer(ops, port);
  seedErrors = [...seeded.github.errors];
  // From here on GitHub is the sign-in's: the seed's fake is gone.
  nock.cleanAll();
  signIn = fakeGitHubSignIn({
    ...CLIENT,
    installations: [
      { login: "octo-org", type: "Organization" },
      { login: "solo-dev", type: "User" },
    ],
    users: [
      { login: "maintainer", orgs: { "octo-org": "member" }, repos: ["octo-org/shop", "octo-org/other"] },
      { login: "shopper", orgs: { "octo-org": "member" }, repos: ["octo-org/shop"] },
      { login: "outsider", orgs: {}, repos: [] },
      { login: "stranger", orgs: { "elsewhere-org": "admin" }, repos: ["elsewhere-org/app"] },
    ],
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}, 300_000);

afterAll(async () => {
  if (!hasChromium) return;
  await browser?.close();
  await seeded?.running.stop();
  const { unmatched } = network.stop();
  expect(unmatched, "requests nothing answered").toEqual([]);
  expect(signIn.errors, "sign-in requests that do not fit GitHub's REST description or flow").toEqual([]);
}, 60_000);

/**
 * A browser context that signs in as `login`: the dashboard's redirect to GitHub's consent
 * page is taken (its state cookie kept) and answered as GitHub answers once the user
 * consents, with a code for the callback. Chromium does not let a test route a redirect's
 * target, so sign-in starts at /dashboard/auth/login (where /dashboard sends a stranger)
 * and the hop to github.com is replaced by its result.
 */
async function signedInAs(login: string, options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  await context.route(`${base}/dashboard/auth/login`, async (route) => {
    const response = await route.fetch({ maxRedirects: 0 });
    const url = new URL(response.headers().location ?? "");
    expect(`${url.origin}${url.pathname}`).toBe("https://github.com/login/oauth/authorize");
    expect(url.searchParams.get("client_id")).toBe(CLIENT.clientId);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    const redirect = url.searchParams.get("redirect_uri") ?? "";
    expect(redirect).toBe(`${base}/dashboard/auth/callback`);
    const code = signIn.authorize(login, url.searchParams.get("code_challenge") ?? "", redirect);
    await route.fulfill({
      response,
      headers: {
        ...response.headers(),
        location: `${redirect}?code=${code}&state=${encodeURIComponent(url.searchParams.get("state") ?? "")}`,
      },
    });
  });
  context.on("page", (page) => page.on("dialog", (dialog) => void (dialogs.push(dialog.message()), dialog.dismiss())));
  return context;
}

const text = async (locator: Locator) => locator.innerText();

async function jobId(number: number): Promise<number> {
  const history = new SqliteJobHistory(seeded.dbPath);
  const job = (await history.jobs()).find((j) => j.number === number);
  await history.close();
  return job?.id ?? -1;
}

describe.skipIf(!hasChromium)("the dashboard in Chromium", () => {
  it("was seeded by real jobs against GitHub's REST description", () => {
    expect(seedErrors).toEqual([]);
    expect(seeded.state.pulls).toHaveLength(1);
  });

  it("signs a member in through GitHub and renders the seeded jobs; a screenshot is kept", async () => {
    const context = await signedInAs("maintainer");
    const page = await context.newPage();
    // Not signed in, the dashboard sends the browser to sign in first.
    const first = await context.request.get(`${base}/dashboard`, { maxRedirects: 0 });
    expect([first.status(), first.headers().location]).toEqual([303, "/dashboard/auth/login"]);
    const response = await page.goto(`${base}/dashboard/auth/login`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${base}/dashboard`);
    expect(await text(page.locator("header"))).toContain("signed in as maintainer");
    const recent = page.locator("#recent tr[data-job]");
    expect(await recent.count()).toBe(4);
    expect(await text(page.locator("#recent"))).toContain(ISSUE.title);
    // The hostile title is text on the page, not markup: no element, no script ran.
    expect(await text(page.locator("#recent"))).toContain(HOSTILE_TITLE);
    expect(await page.locator("#recent img").count()).toBe(0);
    expect(await page.locator("main script").count()).toBe(0);
    expect(await text(page.locator("#now"))).toContain("Totals are rounded wrongly");
    expect(await text(page.locator("#now"))).toContain("running: plan");
    expect(await page.locator("#charts svg").count()).toBe(3);
    expect(await text(page.locator("table.per-repository"))).toContain("octo-org/shop");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL("dashboard-overview.png", ARTIFACTS).pathname, fullPage: true });
    expect(existsSync(new URL("dashboard-overview.png", ARTIFACTS))).toBe(true);
    expect(dialogs).toEqual([]);
    await context.close();
  }, 180_000);

  it("renders a job's page from the overview's link", async () => {
    const context = await signedInAs("maintainer");
    const page = await context.newPage();
    await page.goto(`${base}/dashboard/auth/login`);
    const id = await jobId(42);
    await page.click(`a[href="/dashboard/jobs/${id}"]`);
    expect(page.url()).toBe(`${base}/dashboard/jobs/${id}`);
    expect(await text(page.locator("h1"))).toContain(`Job #${id}: ${ISSUE.title}`);
    expect(await text(page.locator("table.attempts"))).toContain("plausible");
    expect(await text(page.locator("table.evidence").first())).toContain(
      "tests/test_cart.py::test_total_applies_discount",
    );
    expect(await text(page.locator("table.cost"))).toContain("Test runs");
    expect(await page.locator('a[href^="https://github.com/octo-org/shop/pull/"]').count()).toBe(1);
    expect(await text(page.locator("dl.summary"))).toContain("(merged)");
    // The red-build job's page links its check run.
    await page.goto(`${base}/dashboard/jobs/${await jobId(7)}`);
    expect(await page.locator("a.check-run").getAttribute("href")).toBe(CHECK_RUN_URL);
    expect(await page.content()).not.toContain(SECRET_CANARY);
    await context.close();
  }, 180_000);

  it("renders the tables with JavaScript turned off", async () => {
    const context = await signedInAs("maintainer", { javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${base}/dashboard/auth/login`);
    expect(page.url()).toBe(`${base}/dashboard`);
    expect(await page.locator("#recent tr[data-job]").count()).toBe(4);
    expect(await page.locator("#now tr[data-job]").count()).toBe(1);
    const repoRow = page.locator("table.per-repository tbody tr", { hasText: "octo-org/shop" });
    expect(await repoRow.locator("td").allInnerTexts()).toEqual(expect.arrayContaining(["octo-org/shop", "4"]));
    expect(await page.locator("table.per-week tbody tr").count()).toBeGreaterThan(0);
    expect(await page.locator("#charts svg rect").count()).toBeGreaterThan(0);
    await page.click(`a[href="/dashboard/jobs/${await jobId(42)}"]`);
    expect(await page.locator("table.attempts tbody tr").count()).toBeGreaterThan(0);
    expect(await page.locator("table.evidence").count()).toBeGreaterThan(0);
    expect(await page.locator("table.cost").count()).toBe(1);
    await context.close();
  }, 180_000);

  it("shows a member only the repositories GitHub says they can read", async () => {
    const context = await signedInAs("shopper");
    const page = await context.newPage();
    await page.goto(`${base}/dashboard/auth/login`);
    expect(await text(page.locator("#recent"))).toContain(ISSUE.title);
    expect(await page.locator("#recent tr[data-job]").count()).toBe(3);
    expect(await page.content()).not.toContain("octo-org/other");
    const hidden = await page.goto(`${base}/dashboard/jobs/${await jobId(43)}`);
    expect(hidden?.status()).toBe(404);
    await context.close();
  }, 180_000);

  it("refuses an outsider and a member of another organisation", async () => {
    for (const login of ["outsider", "stranger"]) {
      const context = await signedInAs(login);
      const page = await context.newPage();
      const response = await page.goto(`${base}/dashboard/auth/login`);
      expect(response?.status()).toBe(403);
      expect(await text(page.locator("p.message"))).toContain(
        `${login} is not a member of an organisation this App is installed on.`,
      );
      expect(await page.content()).not.toContain(ISSUE.title);
      // Still not signed in: the dashboard sends them to GitHub again.
      const again = await context.request.get(`${base}/dashboard`, { maxRedirects: 0 });
      expect(again.status()).toBe(303);
      expect(again.headers().location).toBe("/dashboard/auth/login");
      await context.close();
    }
    expect(
      signIn.operations().filter((op) => op === "orgs/get-membership-for-authenticated-user").length,
    ).toBeGreaterThanOrEqual(2);
  }, 180_000);

  it("refuses a callback whose state this browser did not start, and signs out", async () => {
    const context = await signedInAs("maintainer");
    const page = await context.newPage();
    const forged = await page.goto(`${base}/dashboard/auth/callback?code=stolen&state=guessed`);
    expect(forged?.status()).toBe(400);
    await page.goto(`${base}/dashboard/auth/login`);
    expect(await text(page.locator("header"))).toContain("signed in as maintainer");
    const cookies = await context.cookies(`${base}/dashboard`);
    const session = cookies.find((c) => c.name === "autogen_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/dashboard", secure: false });
    await page.click("header button[type=submit]");
    expect(await text(page.locator("p.message"))).toContain("Signed out.");
    const after = await context.request.get(`${base}/dashboard`, { maxRedirects: 0 });
    expect(after.status()).toBe(303);
    await context.close();
  }, 180_000);

  it("serves /metrics beside it, with the seeded counts", async () => {
    const { families, problems } = parseMetrics(await (await fetch(`${base}/metrics`)).text());
    expect(problems).toEqual([]);
    expect(value(families, "autogen_jobs", { kind: "fix", state: "done" })).toBe(1);
    expect(value(families, "autogen_jobs", { kind: "fix", state: "cancelled" })).toBe(1);
    expect(value(families, "autogen_webhook_deliveries_total", { result: "accepted" })).toBe(4);
    expect(value(families, "autogen_pull_requests_merged_total")).toBe(1);
  });
});
