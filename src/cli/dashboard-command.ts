// `autogen-bot dashboard --out <dir>`: the dashboard's pages as static files from the job store.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { defaultDataDir } from "../config/data-dir.ts";
import { buildStaticDashboard } from "../dashboard/build-static-dashboard.ts";
import { openJobHistory } from "../ops/pg-job-history.ts";
import { EXIT, UsageError, type CliCommand } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";

export const dashboardCommand: CliCommand = {
  name: "dashboard",
  summary: "write the operator's dashboard (jobs, outcomes, cost) as static HTML from the job store",
  usage: "autogen-bot dashboard --out <dir> [--db <file>]\n\n--db defaults to AUTOGEN_DB_PATH, else autogen.db in the data directory; with DATABASE_URL set and no --db, the Postgres store is read. GHE_HOST, when set, is used for links to issues and PRs.\nEvery job in the store is shown: publish the pages only where every reader may see every repository in it.",
  async run(args, io) {
    const { values } = parseFlags(args, { out: { type: "string" }, db: { type: "string" } }, false);
    if (!values.out) throw new UsageError("--out <dir> is required");
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
      const { pages } = await buildStaticDashboard(history, out, { webUrl: io.env.GHE_HOST ? `https://${io.env.GHE_HOST}` : "https://github.com", now: Date.now() });
      io.stdout(`wrote ${pages} page(s) to ${out} (open index.html)\n`);
      return EXIT.ok;
    } finally {
      await history.close();
    }
  },
};
