// Probot's Octokit for tests: no retries, no throttling.
//
// `ProbotOctokit.defaults({ throttle: { enabled: false } })` does not switch throttling off
// under a Probot: Probot hands every instance its own throttle options (its rate-limit
// callbacks), and an object given to `defaults` is merged shallowly, so Probot's object
// replaces ours, `enabled` falls back to true and the plugin spaces writes a second apart
// (a repair's few dozen writes cost half a minute). A function merges after Probot's.
import { ProbotOctokit } from "probot";

export const TestOctokit = ProbotOctokit.defaults((options: { throttle?: object }) => ({
  ...options,
  retry: { enabled: false },
  throttle: { ...options.throttle, enabled: false },
})) as typeof ProbotOctokit;
