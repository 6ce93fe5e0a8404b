// How far apart the GitHub client spaces its writes. GitHub asks integrations to leave at
// least a second between mutating requests, and Octokit's throttling plugin does: writes a
// second apart, writes that notify someone (comments, pull requests) three. A GitHub
// Enterprise Server whose rate limits are off, or a stand-in for GitHub, does not ask it:
// AUTOGEN_GITHUB_WRITE_SPACING_MS sets the spacing (notifying writes three times it). Only
// the spacing changes; rate-limit answers are still waited out as GitHub says.
import Bottleneck from "bottleneck";
import type { ProbotOctokit } from "probot";
import { z } from "zod";

const spacingSchema = z.coerce.number().int().min(0).max(60_000);

/** The spacing AUTOGEN_GITHUB_WRITE_SPACING_MS asks for, in milliseconds; undefined: Octokit's (GitHub's). */
export function writeSpacingFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.AUTOGEN_GITHUB_WRITE_SPACING_MS?.trim();
  if (!text) return undefined;
  const parsed = spacingSchema.safeParse(text);
  if (!parsed.success)
    throw new Error(
      `AUTOGEN_GITHUB_WRITE_SPACING_MS is ${JSON.stringify(text)}: set a whole number of milliseconds from 0 to 60000 between two writes to GitHub, or leave it unset for GitHub's one second`,
    );
  return parsed.data;
}

/**
 * The Octokit class with its writes spaced `ms` apart (notifying writes 3 × `ms`). A function
 * default, because Probot hands every instance its own throttle options and an object given
 * to `defaults` would be replaced by Probot's; a function merges after them.
 */
export function writeSpacedOctokit(Octokit: typeof ProbotOctokit, ms: number): typeof ProbotOctokit {
  const write = new Bottleneck.Group({ maxConcurrent: 1, minTime: ms });
  const notifications = new Bottleneck.Group({ maxConcurrent: 1, minTime: 3 * ms });
  return Octokit.defaults((options: { throttle?: object }) => ({
    ...options,
    throttle: { ...options.throttle, write, notifications },
  })) as typeof ProbotOctokit;
}
