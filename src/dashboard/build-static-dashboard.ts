// The dashboard as static files, built from a job store (for the Actions mode, where no
// server runs): index.html (the overview) and job-<id>.html per job, linked relatively.
// There is no viewer here: publish the files only where everyone may read every
// repository in the store.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { JobHistory } from "../ops/job-history.ts";
import { OVERVIEW_JOBS } from "./dashboard-route.ts";
import { renderJob, renderOverview, type PageContext } from "./render-pages.ts";

export const STATIC_LINKS = { overview: "index.html", job: (id: number) => `job-${id}.html` };

export async function buildStaticDashboard(
  history: JobHistory,
  out: string,
  options: { webUrl: string; now: number },
): Promise<{ pages: number }> {
  await mkdir(out, { recursive: true });
  const ctx: PageContext = { links: STATIC_LINKS, now: options.now, webUrl: options.webUrl };
  const jobs = await history.jobs({ limit: OVERVIEW_JOBS });
  await writeFile(join(out, "index.html"), renderOverview(jobs, ctx).text);
  for (const summary of jobs) {
    const job = await history.job(summary.id);
    if (job) await writeFile(join(out, STATIC_LINKS.job(job.id)), renderJob(job, ctx).text);
  }
  return { pages: jobs.length + 1 };
}
