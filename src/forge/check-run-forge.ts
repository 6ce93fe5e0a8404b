// The check run named `autogen` on a commit, behind a port of its own (checks/create and
// checks/update). Like everything the bot posts, its title, summary and annotation text
// pass the secret scrubber and the mention neutralizer; the summary is cut to GitHub's
// limit at a line, with a closing fence when the cut fell inside a code block.
import { neutralizeMentions } from "../secrets/neutralize-mentions.ts";
import type { Scrubber } from "../secrets/scrub-secrets.ts";

export const CHECK_RUN_NAME = "autogen";
/** GitHub's limits: output.summary and output.text are 65535 characters, 50 annotations per request. */
export const MAX_CHECK_SUMMARY = 65_535;
export const MAX_ANNOTATIONS_PER_REQUEST = 50;
/** Annotation messages are limited to 64 KB; ours are short, cut well below that. */
const MAX_ANNOTATION_MESSAGE = 4_000;

export type CheckConclusion = "success" | "neutral" | "failure" | "cancelled";
export type CheckAnnotation = {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: "notice" | "warning" | "failure";
  message: string;
  title?: string | undefined;
};
export type CheckAction = { label: string; description: string; identifier: "retry" | "apply" };
export type CheckOutput = { title: string; summary: string; annotations?: CheckAnnotation[] | undefined };

export type CheckRunForge = {
  create(
    owner: string,
    repo: string,
    run: { headSha: string; externalId: string; output: CheckOutput },
  ): Promise<number>;
  /** Output without a conclusion keeps the run in progress (annotations are appended); with one, it completes. */
  update(
    owner: string,
    repo: string,
    id: number,
    run: { output: CheckOutput; conclusion?: CheckConclusion | undefined; actions?: CheckAction[] | undefined },
  ): Promise<void>;
};

type CheckRunParams = {
  owner: string;
  repo: string;
  output: CheckOutput;
  status?: "in_progress" | "completed";
  conclusion?: CheckConclusion;
  completed_at?: string;
  actions?: CheckAction[];
};
export type ChecksOctokitLike = {
  rest: {
    checks: {
      create(
        p: CheckRunParams & { name: string; head_sha: string; external_id: string; started_at: string },
      ): Promise<{ data: { id: number } }>;
      update(p: CheckRunParams & { check_run_id: number }): Promise<unknown>;
    };
  };
};

/** Cuts `text` to `limit` characters at a line, closing a code fence left open and saying where the rest is. */
export function truncateSummary(
  text: string,
  limit = MAX_CHECK_SUMMARY,
  where = "the full report is in the job's status comment",
): string {
  if (text.length <= limit) return text;
  const note = `\n\n… (truncated: GitHub limits a check run's summary to ${limit} characters; ${where})`;
  let cut = text.slice(0, limit - note.length - 8);
  const lastNewline = cut.lastIndexOf("\n");
  if (lastNewline > cut.length / 2) cut = cut.slice(0, lastNewline);
  const fences = cut.split("\n").filter((l) => /^ {0,3}```/.test(l)).length;
  return `${cut}${fences % 2 === 1 ? "\n```" : ""}${note}`;
}

export function octokitCheckRunForge(octokit: ChecksOctokitLike, scrub: Scrubber): CheckRunForge {
  const clean = (text: string) => neutralizeMentions(scrub(text));
  const output = (o: CheckOutput): CheckOutput => ({
    title: clean(o.title).split("\n")[0]?.slice(0, 250) ?? "",
    summary: truncateSummary(clean(o.summary)),
    ...(o.annotations?.length
      ? {
          annotations: o.annotations.slice(0, MAX_ANNOTATIONS_PER_REQUEST).map((a) => ({
            ...a,
            message: clean(a.message).slice(0, MAX_ANNOTATION_MESSAGE),
            ...(a.title !== undefined ? { title: clean(a.title).slice(0, 250) } : {}),
          })),
        }
      : {}),
  });
  return {
    async create(owner, repo, run) {
      const { data } = await octokit.rest.checks.create({
        owner,
        repo,
        name: CHECK_RUN_NAME,
        head_sha: run.headSha,
        external_id: run.externalId,
        status: "in_progress",
        started_at: new Date().toISOString(),
        output: output(run.output),
      });
      return data.id;
    },
    async update(owner, repo, id, run) {
      await octokit.rest.checks.update({
        owner,
        repo,
        check_run_id: id,
        output: output(run.output),
        ...(run.conclusion
          ? { status: "completed" as const, conclusion: run.conclusion, completed_at: new Date().toISOString() }
          : {}),
        ...(run.actions ? { actions: run.actions } : {}),
      });
    },
  };
}
