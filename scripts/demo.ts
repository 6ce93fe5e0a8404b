// `npm run demo`: the bot's first minute, offline. Copies examples/gradebook (a small
// Python package with a real bug and a failing test) to a temporary git repository,
// runs `autogen-bot fix` there with no model and no network, and prints the report.
import { cp, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../src/cli/main.ts";
import { runGit } from "../src/workspace/run-git.ts";

const example = fileURLToPath(new URL("../examples/gradebook/", import.meta.url));
const repo = await mkdtemp(join(tmpdir(), "autogen-demo-"));
await cp(example, repo, { recursive: true });
const g = (args: string[]) => runGit(args, { cwd: repo });
await g(["init", "--quiet", "--initial-branch=main"]);
await g(["add", "--all"]);
await g([
  "-c",
  "user.name=Demo Maintainer",
  "-c",
  "user.email=demo@example.invalid",
  "commit",
  "--quiet",
  "--message",
  "gradebook: initial version",
]);
console.log(`demo repository: ${repo} (a copy of examples/gradebook, committed on main)\n`);

// The demo is the model-free path, whatever endpoint the caller's shell may name.
const env: NodeJS.ProcessEnv = { ...process.env, AUTOGEN_LLM_BASE_URL: "", OPENAI_API_KEY: "" };
const reportPath = join(repo, ".git", "autogen", "demo-report.md");
const code = await main(
  ["fix", repo, "--issue", "A student with exactly 90 gets a B instead of an A", "--report", reportPath],
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env,
    cwd: process.cwd(),
    isTty: Boolean(process.stdout.isTTY),
  },
);
if (code === 0) {
  console.log(`\n${"=".repeat(30)} report ${"=".repeat(30)}\n`);
  console.log(await readFile(reportPath, "utf8"));
  const branches = (await g(["for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/"]))
    .split("\n")
    .filter(Boolean);
  const fix = branches.find((b) => b.startsWith("autogen/"));
  console.log(
    `branches in ${repo}: ${branches.join(", ")}; see the change with: git -C ${repo} show ${fix ?? "<branch>"}`,
  );
}
process.exitCode = code;
