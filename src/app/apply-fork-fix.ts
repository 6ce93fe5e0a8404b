// `Apply fix` on a fork's check run: the bot cannot push to a fork's branch, so it opens
// the pull request in the base repository, from a bot branch (`autogen/fix-<pr>-<sha7>`)
// made of the fork's head commit plus the fix, into the fork PR's base branch. Merging
// it merges the contributor's commits with the repair (the contributor can also pull the
// branch into theirs). The patch is the job's own checkpointed diff, never anything from
// the webhook; the PR's head must still be the commit the fix was verified on. A pull
// request that changes anything under `.github/` is refused: pushed to a branch of this
// repository, its workflows (and the actions they use) would run with the repository's
// secrets. A second click finds the recorded PR (or the open PR of that branch) and opens
// nothing new. A fix that needs a reviewer (not reviewed, or an output change the issue did
// not ask for) is said so in the commit, the title and the body, and its PR is a draft.
import { readRepoConfigFromForge } from "../forge/read-repo-config-forge.ts";
import { fixedWord, isUnreviewed } from "../engine/review/review-fix.ts";
import type { Outcome } from "../engine/task.ts";
import type { CiForge } from "../forge/ci-forge.ts";
import type { Forge } from "../forge/forge.ts";
import type { Job, Store } from "../jobs/store.ts";
import { renderReport } from "../report/render-report.ts";
import { RepoCache, type Worktree } from "../workspace/repo-cache.ts";
import type { BotIdentity } from "../forge/bot-identity.ts";
import { applyStoredDiff, coAuthor, commitAndPush, gitTarget } from "./publish-change.ts";
import { repairBranch } from "../triggers/bot-branch.ts";

export type Applied = { pull: number; url: string; by: string };
export type ApplyResult = { kind: "opened" | "already"; applied: Applied } | { kind: "refused"; reason: string };

/** Clicks being handled in this process, by job id: a double click waits for nothing and opens nothing. */
const inFlight = new Set<number>();

export async function applyForkFix(
  job: Job,
  clicker: string,
  tools: {
    store: Store;
    forge: Forge;
    ci: CiForge;
    cacheRoot: string;
    botIdentity: (installationId: number) => Promise<BotIdentity>;
  },
): Promise<ApplyResult> {
  const outcome = job.checkpoint.outcome as Outcome | undefined;
  const headSha = job.checkpoint.headSha as string | undefined;
  const recorded = job.checkpoint.applied as Applied | undefined;
  if (recorded) return { kind: "already", applied: recorded };
  if (
    job.kind !== "ci" ||
    job.state !== "done" ||
    outcome?.status !== "fixed" ||
    !headSha ||
    job.checkpoint.pushed !== undefined ||
    job.checkpoint.pull !== undefined
  ) {
    return { kind: "refused", reason: "this job has no fork patch to apply" };
  }
  if (inFlight.has(job.id)) return { kind: "refused", reason: "this fix is being applied already" };
  inFlight.add(job.id);
  let worktree: Worktree | undefined;
  try {
    const { owner, repo, number } = job;
    const pull = await tools.ci.pull(owner, repo, number);
    if (pull.state !== "open") return { kind: "refused", reason: `#${number} is ${pull.state}` };
    if (!pull.fork) return { kind: "refused", reason: `#${number} is not from a fork` };
    if (pull.headSha !== headSha)
      return {
        kind: "refused",
        reason: `the head of #${number} moved to ${pull.headSha.slice(0, 7)} since the fix was found; Retry finds a fix for the new head`,
      };
    const branch = repairBranch(number, headSha);
    let pr = await tools.forge.findOpenPull(owner, repo, branch);
    if (!pr) {
      const repository = await tools.forge.repository(owner, repo);
      const unreviewed = isUnreviewed(outcome);
      let draft = unreviewed;
      try {
        draft ||=
          (await readRepoConfigFromForge(tools.forge, owner, repo, repository.defaultBranch)).pullRequest.draft ===
          "always";
      } catch {
        // An invalid config: the job that found the fix said so already; the PR is not a draft.
      }
      const cache = new RepoCache({ root: tools.cacheRoot });
      const credentials = { username: "x-access-token", password: await tools.forge.cloneToken() };
      const mirror = await cache.mirror(repository.cloneUrl, credentials);
      const mergeBase = (
        await cache.run(mirror, ["merge-base", "--end-of-options", pull.baseSha, headSha], "find the merge base")
      ).trim();
      const touched = (
        await cache.run(
          mirror,
          ["diff-tree", "-r", "-z", "--name-only", "--no-renames", "--end-of-options", mergeBase, headSha],
          "list the pull request's files",
        )
      ).split("\0");
      const settings = touched.filter((path) => path.toLowerCase().startsWith(".github/"));
      if (settings.length > 0)
        return {
          kind: "refused",
          reason: `#${number} changes ${settings.slice(0, 3).join(", ")}${settings.length > 3 ? ", …" : ""}: on a branch of this repository the fork's workflows and actions would run with its secrets`,
        };
      worktree = await cache.worktree(mirror, headSha, `job-${job.id}-apply`);
      await applyStoredDiff(worktree.path, outcome.diff);
      const message = [
        `Apply autogen's fix for the red build of #${number}`,
        "",
        `${unreviewed ? `${fixedWord(outcome)}: ` : ""}${outcome.message}.`,
        "",
        `Applied by ${clicker} from the check run.`,
        coAuthor(job),
      ].join("\n");
      // Published through the Git Data API as the bot, like every other change.
      await commitAndPush(
        worktree,
        mirror,
        await gitTarget(tools.forge, job, tools.botIdentity),
        branch,
        message,
        outcome.changedFiles,
      );
      const title =
        `autogen: #${number} with its CI fix${unreviewed ? ` (${fixedWord(outcome)})` : ""} (${pull.title})`.slice(
          0,
          250,
        );
      const body = [
        `Applies autogen's fix for the red build of #${number} at \`${headSha.slice(0, 7)}\`, on top of that pull request's commits: #${number} comes from a fork, which the bot cannot push to. ${clicker} asked for it with **Apply fix** on the check run.`,
        ...(unreviewed
          ? [
              `\n**Needs a reviewer: ${fixedWord(outcome)}.** The pull request is a draft; read the proof in the report before merging.`,
            ]
          : []),
        `\nMerging this merges #${number} with the fix (close #${number} then); the contributor can instead pull \`${branch}\` into \`${pull.headRef}\`.`,
        `\n${renderReport(outcome, { title, branch })}`,
        `\nRefs #${number}`,
      ].join("\n");
      pr = await tools.forge.createPull(owner, repo, { title, head: branch, base: pull.baseRef, body, draft });
    }
    const applied: Applied = { pull: pr.number, url: pr.url, by: clicker };
    await tools.store.checkpoint(job.id, { applied });
    return { kind: "opened", applied };
  } finally {
    inFlight.delete(job.id);
    await worktree?.remove().catch(() => undefined);
  }
}
