// /dashboard on `autogen-bot serve`: the overview and job pages for a signed-in viewer, showing
// only jobs of repositories the viewer may read (a job they may not read answers as if it
// did not exist). Off unless configured; see docs/operations.md.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";
import { z } from "zod";
import type { DashboardAccess } from "../config/ops-config.ts";
import type { JobHistory, JobSummary } from "../ops/job-history.ts";
import { githubSignIn, type Installation } from "./access/github-sign-in.ts";
import { sendPage } from "./access/http-bits.ts";
import { tokenAccess } from "./access/token-access.ts";
import type { DashboardAccessPort, Viewer } from "./access/viewer.ts";
import { renderJob, renderMessage, renderOverview, type PageContext } from "./render-pages.ts";

/** How many jobs the overview reads (the newest). */
export const OVERVIEW_JOBS = 5000;

export const SERVER_LINKS = { overview: "/dashboard", job: (id: number) => `/dashboard/jobs/${id}` };

/** GitHub's web address for an API base URL (github.com's, or a GitHub Enterprise Server's /api/v3). */
export function webUrlOf(apiUrl: string | undefined): string {
  return apiUrl ? apiUrl.replace(/\/api\/v3\/?$/, "") : "https://github.com";
}

const installationsAnswer = z.array(
  z.object({ account: z.object({ login: z.string(), type: z.string().optional() }).nullable() }),
);

/** The accounts the App is installed on, asked as the App (cached for a minute). */
export function appInstallations(probot: Pick<Probot, "auth">): () => Promise<Installation[]> {
  let cached: { at: number; value: Installation[] } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < 60_000) return cached.value;
    const octokit = await probot.auth();
    const list = installationsAnswer.parse(await octokit.paginate("GET /app/installations", { per_page: 100 }));
    const value = list.flatMap((i) =>
      i.account
        ? [{ login: i.account.login, type: i.account.type === "User" ? ("User" as const) : ("Organization" as const) }]
        : [],
    );
    cached = { at: Date.now(), value };
    return value;
  };
}

export async function visibleJobs(jobs: JobSummary[], viewer: Viewer): Promise<JobSummary[]> {
  const repos = [...new Set(jobs.map((j) => `${j.owner}/${j.repo}`))];
  const readable = new Set<string>();
  await Promise.all(
    repos.map(async (full) => {
      const [owner = "", repo = ""] = full.split("/");
      if (await viewer.canRead(owner, repo)) readable.add(full);
    }),
  );
  return jobs.filter((j) => readable.has(`${j.owner}/${j.repo}`));
}

type Log = {
  warn: (meta: object, message: string) => void;
  info: (meta: object, message: string) => void;
  error: (meta: object, message: string) => void;
};

export function dashboardRoute(options: {
  access: DashboardAccess;
  history: JobHistory;
  probot: Probot;
  baseUrl: string | undefined;
  fetch?: typeof fetch;
  now?: () => number;
}) {
  const { access } = options;
  if (access.mode === "off") return undefined;
  const log = options.probot.log as unknown as Log;
  const webUrl = webUrlOf(options.baseUrl);
  const port: DashboardAccessPort =
    access.mode === "token"
      ? tokenAccess(access.token)
      : githubSignIn({
          ...access,
          webUrl,
          apiUrl: options.baseUrl ?? "https://api.github.com",
          installations: appInstallations(options.probot),
          log,
          ...(options.fetch ? { fetch: options.fetch } : {}),
        });
  const now = options.now ?? Date.now;

  const handle = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    if (path.startsWith("/dashboard/auth/") && (await port.handleAuth(req, res, path))) return;
    const viewer = await port.viewer(req);
    if (!viewer) return port.refuse(req, res);
    const ctx: PageContext = {
      links: { ...SERVER_LINKS, signOut: viewer.signOut },
      now: now(),
      webUrl,
      viewer: viewer.name,
    };
    if (req.method !== "GET")
      return sendPage(res, 405, renderMessage("Not allowed", "Only GET is accepted here.", ctx).text);
    if (path === "/dashboard") {
      const jobs = await visibleJobs(await options.history.jobs({ limit: OVERVIEW_JOBS }), viewer);
      return sendPage(res, 200, renderOverview(jobs, ctx).text);
    }
    const match = /^\/dashboard\/jobs\/(\d{1,12})$/.exec(path);
    const job = match ? await options.history.job(Number(match[1])) : undefined;
    if (job && (await viewer.canRead(job.owner, job.repo))) return sendPage(res, 200, renderJob(job, ctx).text);
    return sendPage(
      res,
      404,
      renderMessage("Not found", "There is no such page, or it is not yours to see.", ctx).text,
    );
  };

  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = (req.url ?? "").split("?")[0]?.replace(/\/+$/, "") ?? "";
    if (path !== "/dashboard" && !path.startsWith("/dashboard/")) return false;
    handle(req, res, path).catch((error: unknown) => {
      log.error({ err: error, path }, "dashboard request failed");
      if (!res.headersSent)
        sendPage(
          res,
          500,
          "<!doctype html><title>Error</title><p>The dashboard could not answer; see the server log.</p>",
        );
      else res.destroy();
    });
    return true;
  };
}
