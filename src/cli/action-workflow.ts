// The workflow `autogen-bot init-workflow --action` writes: templates/autogen-action.yml (one
// job per trigger family, each with its own least permissions) filled with the setup
// steps copied from the repository's CI and the CI workflows whose red builds it
// repairs. The template's comments (why each permission) are kept.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isMap, isSeq, parseDocument, type YAMLMap, type YAMLSeq } from "yaml";
import type { SetupSource } from "./ci-setup.ts";

const TEMPLATE = fileURLToPath(new URL("../../templates/autogen-action.yml", import.meta.url));
export const ACTION_JOBS = ["issue", "issue-comment", "pr-comment", "review", "red-build"] as const;

export function renderActionWorkflow(setup: SetupSource | undefined, ciWorkflows: string[]): string {
  const doc = parseDocument(readFileSync(TEMPLATE, "utf8"));
  const jobs = doc.get("jobs") as YAMLMap;
  const issueSteps = doc.getIn(["jobs", "issue", "steps"], true);
  const inputs =
    isSeq(issueSteps) && isMap(issueSteps.items.at(-1))
      ? (issueSteps.items.at(-1) as YAMLMap).get("with", true)
      : undefined;
  const notes: string[] = [];
  if (ciWorkflows.length) {
    doc.setIn(["on", "workflow_run", "workflows"], doc.createNode(ciWorkflows, { flow: true }));
  } else {
    (doc.get("on") as YAMLMap).delete("workflow_run");
    jobs.delete("red-build");
    notes.push(
      "No CI workflow (one running on push or pull_request) was found: red builds are not watched; run `autogen-bot init-workflow --action` again once you have one.",
    );
  }
  // The name first, where a reader looks for it.
  const copied = (setup?.steps ?? []).map(({ name, ...step }, i) => ({
    name: `setup (edit me): ${name ?? step.uses ?? `step ${i + 1}`}`,
    ...step,
  }));
  for (const pair of jobs.items) {
    const steps = (pair.value as YAMLMap).get("steps") as YAMLSeq;
    const action = steps.items.at(-1);
    if (!isMap(action) || !isMap(inputs))
      throw new Error(
        "templates/autogen-action.yml: each job must end with the autogen step, the first with its inputs",
      );
    if (!isMap(action.get("with", true))) action.set("with", inputs.clone());
    const checkout = steps.items.findIndex((s) => isMap(s) && String(s.get("uses")).startsWith("actions/checkout"));
    const nodes = copied.map((s) => doc.createNode(s));
    if (nodes[0])
      nodes[0].commentBefore = " Setup steps copied from your CI (the code checked out is the default branch's).";
    steps.items.splice(checkout + 1, 0, ...nodes);
  }
  if (setup) {
    notes.push(`Setup steps copied from ${setup.file} (job "${setup.job}") into every job.`);
    if (setup.fixed.length) notes.push(`Matrix values fixed to one: ${setup.fixed.join(", ")}.`);
    if (setup.skipped.length)
      notes.push(
        `Not copied because they use secrets (the secrets here reach only the autogen step): ${setup.skipped.join(", ")}.`,
      );
    if (setup.unsafe.length)
      notes.push(
        `Not copied because they expand an event value in a script, or a matrix value this job lacks: ${setup.unsafe.join(", ")}.`,
      );
  } else {
    notes.push(
      "No CI workflow with a test step was found: add the steps that install what your tests need after each checkout.",
    );
  }
  // The template's header comment belongs to its first key; the notes follow it.
  const first = (doc.contents as YAMLMap).items[0]?.key as { commentBefore?: string | null } | undefined;
  if (first) first.commentBefore = `${first.commentBefore ?? ""}\n\n${notes.map((n) => ` ${n}`).join("\n")}`;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
