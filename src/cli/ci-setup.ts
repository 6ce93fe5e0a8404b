// What `autogen-bot init-workflow` takes from the repository's own CI: the setup steps of
// the first job that runs tests (the steps before its test step), and the names of the
// CI workflows a red build can come from. Steps that use secrets, or that expand an
// event value inside a shell script, are never copied; matrix values are fixed to one.
import { existsSync, readdirSync } from "node:fs";
import { readWorktreeTextSync } from "../workspace/read-worktree-file.ts";
import { join } from "node:path";
import { parse } from "yaml";

export const TEST_STEP =
  /\b(pytest|tox|nox|npm (run )?test|npm t\b|yarn test|pnpm test|vitest|jest|mocha|node --test|go test|cargo test|mvn|gradle|make test)\b/;

export type Step = {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  [key: string]: unknown;
};
type Job = { steps?: Step[]; strategy?: { matrix?: Record<string, unknown> } };
type WorkflowDoc = { name?: unknown; on?: unknown; jobs?: Record<string, Job> };

export type SetupSource = {
  file: string;
  job: string;
  steps: Step[];
  testRun: string;
  /** Steps not copied because they use secrets. */
  skipped: string[];
  /** Steps not copied because their script expands an event value (script injection). */
  unsafe: string[];
  /** Matrix values fixed to one, e.g. "node=24". */
  fixed: string[];
};

/** autogen's own workflows, never a source of setup steps nor a red build to repair. */
export function isAutogenWorkflow(file: string): boolean {
  return file.startsWith("autogen-verify") || /^autogen\.ya?ml$/.test(file);
}

function workflows(repo: string): Array<{ file: string; doc: WorkflowDoc }> {
  const dir = join(repo, ".github", "workflows");
  if (!existsSync(dir)) return [];
  const found: Array<{ file: string; doc: WorkflowDoc }> = [];
  for (const file of readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && !isAutogenWorkflow(f))
    .sort()) {
    try {
      const doc = parse(readWorktreeTextSync(repo, `.github/workflows/${file}`, { maxBytes: 1024 * 1024 }), {
        maxAliasCount: 100,
      }) as WorkflowDoc | null;
      if (doc && typeof doc === "object") found.push({ file, doc });
    } catch {
      continue;
    }
  }
  return found;
}

const usesSecrets = (s: Step) => JSON.stringify(s).includes("secrets.");
// An event value (issue or comment text, a branch name, a dispatch input) expanded by
// Actions inside a script runs as code; in autogen's workflows those values are
// attacker-written. Such a step is left out, not rewritten.
const EVENT_IN_SCRIPT = /\$\{\{[^}]*\b(github\.event\b|github\.head_ref\b|inputs\.)/;
const expandsEvent = (s: Step) => typeof s.run === "string" && EVENT_IN_SCRIPT.test(s.run);

/** `${{ matrix.x }}` replaced by the matrix's last value for x (one job, no matrix). */
function fixMatrix(step: Step, matrix: Record<string, unknown> | undefined, fixed: Set<string>): Step | undefined {
  const text = JSON.stringify(step);
  let unresolved = false;
  const replaced = text.replace(/\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}/g, (_all, key: string) => {
    const values = matrix?.[key];
    const value = Array.isArray(values) ? values.at(-1) : undefined;
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      unresolved = true;
      return "";
    }
    fixed.add(`${key}=${String(value)}`);
    return JSON.stringify(String(value)).slice(1, -1);
  });
  return unresolved ? undefined : (JSON.parse(replaced) as Step);
}

/** The steps before the first test step of the first job that runs tests. */
export function setupFromCi(repo: string): SetupSource | undefined {
  for (const { file, doc } of workflows(repo)) {
    for (const [name, job] of Object.entries(doc.jobs ?? {})) {
      const steps = job?.steps ?? [];
      const index = steps.findIndex((s) => typeof s.run === "string" && TEST_STEP.test(s.run));
      if (index < 0) continue;
      const before = steps
        .slice(0, index)
        .filter((s) => !(typeof s.uses === "string" && s.uses.startsWith("actions/checkout")));
      const label = (s: Step) => s.name ?? s.uses ?? "a step";
      const fixed = new Set<string>();
      const copied: Step[] = [];
      const unsafe: string[] = [];
      for (const step of before.filter((s) => !usesSecrets(s))) {
        const resolved = expandsEvent(step) ? undefined : fixMatrix(step, job.strategy?.matrix, fixed);
        if (resolved) copied.push(resolved);
        else unsafe.push(label(step));
      }
      return {
        file,
        job: name,
        steps: copied,
        testRun: String(steps[index]?.run).trim(),
        skipped: before.filter(usesSecrets).map(label),
        unsafe,
        fixed: [...fixed],
      };
    }
  }
  return undefined;
}

const CI_EVENTS = ["push", "pull_request", "merge_group"];

/**
 * The names (as `workflow_run.workflows` matches them) of the workflows that run on
 * pushes or pull requests: a workflow without `name:` is named by its path.
 */
export function ciWorkflowNames(repo: string): string[] {
  const names: string[] = [];
  for (const { file, doc } of workflows(repo)) {
    const on = doc.on;
    const events =
      typeof on === "string" ? [on] : Array.isArray(on) ? on : on && typeof on === "object" ? Object.keys(on) : [];
    if (!events.some((e) => CI_EVENTS.includes(String(e)))) continue;
    const name = typeof doc.name === "string" && doc.name.trim() ? doc.name : `.github/workflows/${file}`;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}
