// The action's inputs, as the runner passes them: `INPUT_<NAME>` with the name
// upper-cased and its dashes kept (`INPUT_GITHUB-TOKEN`), an unset input without a
// default as an empty string. Validated here, each problem named with the input to set.
import { z } from "zod";
import { DEFAULT_MODEL, llmEndpoint, type LlmEndpoint } from "../config/llm-env.ts";
import { budgetsSchema, strategySchema, type RepoConfig } from "../config/repo-config-schema.ts";

export type ActionInputs = {
  githubToken: string;
  llm: LlmEndpoint | undefined;
  strategy: RepoConfig["strategy"]["name"] | undefined;
  label: string;
  maxCostUsd: number | undefined;
  maxAttempts: number | undefined;
  /** The App whose token `github-token` is (actions/create-github-app-token's `app-slug`); undefined: GITHUB_TOKEN's github-actions[bot]. */
  appSlug: string | undefined;
};

export class ActionInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ActionInputError";
  }
}

const input = (env: NodeJS.ProcessEnv, name: string): string => (env[`INPUT_${name.toUpperCase()}`] ?? "").trim();

const strategyNames = strategySchema.shape.name.unwrap();
const dollars = budgetsSchema.shape.dollars.unwrap();
const attempts = z.coerce.number().int().min(1).max(500);

export function readActionInputs(env: NodeJS.ProcessEnv): ActionInputs {
  const problems: string[] = [];
  const githubToken = input(env, "github-token");
  if (!githubToken)
    problems.push(
      "`github-token` is empty: leave it at its default (`${{ github.token }}`) or pass an App token from actions/create-github-app-token (`github-token: ${{ steps.app-token.outputs.token }}`).",
    );

  const strategyText = input(env, "strategy");
  let strategy: ActionInputs["strategy"];
  if (strategyText) {
    const parsed = strategyNames.safeParse(strategyText);
    if (parsed.success) strategy = parsed.data;
    else
      problems.push(`\`strategy\` is ${JSON.stringify(strategyText)}: set one of ${strategyNames.options.join(", ")}.`);
  }

  const baseUrl = input(env, "llm-base-url");
  const apiKey = input(env, "llm-api-key");
  if (baseUrl && !/^https?:\/\/[^\s]+$/.test(baseUrl))
    problems.push(
      "`llm-base-url` is not an http(s) URL: set the model server's OpenAI-compatible base URL, e.g. https://api.openai.com/v1.",
    );
  const llm = llmEndpoint(baseUrl || undefined, apiKey || undefined, input(env, "model") || DEFAULT_MODEL);
  if (strategy && strategy !== "template" && !llm)
    problems.push(
      `\`strategy: ${strategy}\` needs a model: set \`llm-api-key\` (a repository secret, e.g. \`llm-api-key: \${{ secrets.OPENAI_API_KEY }}\`) and, for a server other than OpenAI's, \`llm-base-url\`; or set \`strategy: template\` to run without a model.`,
    );

  const label = input(env, "label") || "autogen";
  if (label.length > 50) problems.push("`label` is longer than 50 characters: set the issue label that starts work.");

  const costText = input(env, "max-cost-usd");
  let maxCostUsd: number | undefined;
  if (costText) {
    const parsed = dollars.safeParse(Number(costText));
    if (parsed.success && costText !== "") maxCostUsd = parsed.data;
    else problems.push(`\`max-cost-usd\` is ${JSON.stringify(costText)}: set a number of US dollars from 0 to 100.`);
  }
  const attemptsText = input(env, "max-attempts");
  let maxAttempts: number | undefined;
  if (attemptsText) {
    const parsed = attempts.safeParse(attemptsText);
    if (parsed.success) maxAttempts = parsed.data;
    else
      problems.push(
        `\`max-attempts\` is ${JSON.stringify(attemptsText)}: set a whole number of candidates from 1 to 500.`,
      );
  }
  const appSlug = input(env, "app-slug") || undefined;
  if (appSlug !== undefined && !/^[a-z0-9][a-z0-9-]{0,99}$/i.test(appSlug))
    problems.push(
      `\`app-slug\` is ${JSON.stringify(appSlug.slice(0, 60))}: set the \`app-slug\` output of actions/create-github-app-token (letters, digits and dashes), or leave it empty with the default GITHUB_TOKEN.`,
    );
  if (problems.length > 0) throw new ActionInputError(problems.join(" "));
  return { githubToken, llm, strategy, label, maxCostUsd, maxAttempts, appSlug };
}

/**
 * The repository's config with the inputs applied: an input that is set wins, and the
 * tests always run here, on the runner (`verify: local`): the job never dispatches a
 * verification workflow, so a repair takes one workflow run.
 */
export function applyActionInputs(config: RepoConfig, inputs: ActionInputs): RepoConfig {
  return {
    ...config,
    verify: "local",
    label: inputs.label,
    strategy: inputs.strategy ? { ...config.strategy, name: inputs.strategy } : config.strategy,
    budgets: {
      ...config.budgets,
      ...(inputs.maxCostUsd !== undefined ? { dollars: inputs.maxCostUsd } : {}),
      ...(inputs.maxAttempts !== undefined ? { iterations: inputs.maxAttempts } : {}),
    },
  };
}
