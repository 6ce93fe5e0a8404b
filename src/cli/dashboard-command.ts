// `autogen-bot dashboard --out <dir>`: the dashboard's pages as static files from the job store
// (or, with --demo, from the bundled sample history: something to look at before deploying).
// Its work is in run-dashboard.ts, loaded only when the command runs: another command's start (or a
// --help) does not load its modules.
import type { CliCommand } from "./command.ts";

export const dashboardCommand: CliCommand = {
  name: "dashboard",
  summary: "write the operator's dashboard (jobs, outcomes, cost) as static HTML from the job store",
  usage:
    "autogen-bot dashboard --out <dir> [--db <file>]\nautogen-bot dashboard --demo [--out <dir>]\n\n--demo renders a bundled sample job history (no store needed; --out defaults to a temporary folder).\n--db defaults to AUTOGEN_DB_PATH, else autogen.db in the data directory; with DATABASE_URL set and no --db, the Postgres store is read. GHE_HOST, when set, is used for links to issues and PRs.\nEvery job in the store is shown: publish the pages only where every reader may see every repository in it.",
  run: async (args, io) => (await import("./run-dashboard.ts")).runDashboard(args, io),
};
