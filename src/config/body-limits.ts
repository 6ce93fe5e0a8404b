// The webhook body limits: the server enforces them, the environment (AUTOGEN_WEBHOOK_MAX_BODY_BYTES) sets one.
/** GitHub's own cap on a webhook payload: nothing bigger comes from GitHub. */
export const GITHUB_MAX_BODY_BYTES = 25 * 1024 * 1024;
/**
 * The default body limit. The events the App subscribes to (issues, comments, pull requests,
 * reviews, check runs and suites, workflow runs) carry at most a few text fields of 65,536
 * characters each: a few hundred KB even with every character escaped. 4 MiB leaves room
 * for any of them, and keeps what one accepted body costs (its text, its parse, the copy
 * stored in the inbox and read back) well under the in-flight cap. Push events, which can
 * reach GitHub's 25 MB, are not subscribed to.
 */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
