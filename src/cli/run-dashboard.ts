// The work of `autogen-bot dashboard`, loaded when the command runs; dashboard-command.ts describes it
// and holds its name, summary and usage.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { defaultDataDir } from "../config/data-dir.ts";
import { buildStaticDashboard } from "../dashboard/build-static-dashboard.ts";
import { demoJobHistory } from "../dashboard/demo-job-history.ts";
import { openJobHistory } from "../ops/pg-job-history.ts";
import { EXIT, UsageError, type CliIo } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";

export async function runDashboard(args: string[], io: CliIo): Promise<number> {
  const flags = { out: { type: "string" }, db: { type: "string" }, demo: { type: "boolean" } } as const;
  const { values } = parseFlags(args, flags, false);
  if (values.demo) {
    if (values.db) throw new UsageError("--demo renders the bundled sample history: leave out --db");
    const out = resolve(io.cwd, values.out ?? join(tmpdir(), "autogen-bot-dashboard-demo"));
    const demo = demoJobHistory();
    const { pages } = await buildStaticDashboard(demo, out, { webUrl: "https://github.com", now: demo.now });
    const index = pathToFileURL(join(out, "index.html")).href;
    io.stdout(`wrote ${pages} page(s) of the sample job history to ${out}\nopen ${index}\n`);
    return EXIT.ok;
  }
  if (!values.out) throw new UsageError("--out <dir> is required (or --demo to see the dashboard on sample jobs)");
  const db = resolve(io.cwd, values.db ?? io.env.AUTOGEN_DB_PATH ?? join(defaultDataDir(io.env), "autogen.db"));
  // A Postgres store (DATABASE_URL) unless a file was named.
  const databaseUrl = values.db ? undefined : io.env.DATABASE_URL;
  if (!databaseUrl && !existsSync(db)) {
    io.stderr(`autogen-bot dashboard: no job store at ${db}; pass --db or set AUTOGEN_DB_PATH\n`);
    return EXIT.usage;
  }
  const history = openJobHistory({ databaseUrl, dbPath: db });
  try {
    const out = resolve(io.cwd, values.out);
    const { pages } = await buildStaticDashboard(history, out, {
      webUrl: io.env.GHE_HOST ? `https://${io.env.GHE_HOST}` : "https://github.com",
      now: Date.now(),
    });
    io.stdout(`wrote ${pages} page(s) to ${out} (open index.html)\n`);
    return EXIT.ok;
  } finally {
    await history.close();
  }
}
