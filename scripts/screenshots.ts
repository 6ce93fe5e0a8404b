// Screenshots for the docs, taken in Debian's Chromium (driven by playwright-core):
// the dashboard rendered from the bundled sample history (`dashboard --demo`), one job's
// page, and the setup page `serve` shows when no App is configured. Writes docs/screenshots/.
//
//   npm run screenshots
import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { buildStaticDashboard } from "../src/dashboard/build-static-dashboard.ts";
import { demoJobHistory } from "../src/dashboard/demo-job-history.ts";
import { startSetupServer } from "../src/server/app-setup/setup-server.ts";

const OUT = fileURLToPath(new URL("../docs/screenshots/", import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

await mkdir(OUT, { recursive: true });
const site = await mkdtemp(join(tmpdir(), "autogen-screenshots-"));
const demo = demoJobHistory();
await buildStaticDashboard(demo, site, { webUrl: "https://github.com", now: demo.now });
const newestFixed = (await demo.jobs()).find((j) => j.outcome === "fixed");

// Nothing is sent anywhere: the page is only displayed, its button never pressed.
const setup = await startSetupServer({
  host: "127.0.0.1",
  port: 0,
  webUrl: "https://github.com",
  apiUrl: "https://api.github.com",
  webhookUrl: undefined,
  envDir: site,
});
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // The overview's first screen, its charts, one job's page, the setup page.
  const shots: Array<[string, string, string | undefined]> = [
    [pathToFileURL(join(site, "index.html")).href, "dashboard-demo.png", undefined],
    [pathToFileURL(join(site, "index.html")).href, "dashboard-demo-charts.png", "#charts"],
    [pathToFileURL(join(site, `job-${newestFixed?.id}.html`)).href, "dashboard-demo-job.png", undefined],
    [`${setup.url}/`, "setup-page.png", undefined],
  ];
  for (const [url, file, section] of shots) {
    const started = performance.now();
    await page.goto(url);
    if (section) await page.locator(section).screenshot({ path: join(OUT, file) });
    else await page.screenshot({ path: join(OUT, file) });
    const where = `${url.startsWith("file:") ? url.slice(url.lastIndexOf("/") + 1) : url}${section ?? ""}`;
    console.log(`${file}: ${where} in ${Math.round(performance.now() - started)} ms`);
  }
} finally {
  await browser.close();
  await setup.close();
}
