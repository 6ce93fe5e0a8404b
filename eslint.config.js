// Lint: the recommended JavaScript and TypeScript rules, plus the house habits of
// ../shared/docs/style.md that a linter can check (no `any` at boundaries, no enums), and
// the one gate for reading files: in src/, a file is read through
// src/workspace/read-worktree-file.ts (a worktree's files: no link, device, FIFO or hard
// link, bounded) or src/verify/read-run-output.ts (what a sandboxed run wrote for us).
// The few modules that read the bot's own files (prompts, templates, the key, datasets)
// are listed below by name, each for that reason.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const FS_MODULES = ["node:fs", "node:fs/promises", "fs", "fs/promises"];
// copyFile follows a link at the end (and copies /dev/zero forever); `promises` is node:fs's door to the same reads.
const FS_READS = [
  "readFile",
  "readFileSync",
  "createReadStream",
  "open",
  "openSync",
  "openAsBlob",
  "readSync",
  "read",
  "readv",
  "readvSync",
  "copyFile",
  "copyFileSync",
  "promises",
];
const FS_SOURCE = "/^(node:)?fs(\\u002Fpromises)?$/";
const UNSAFE_READ =
  "Read a worktree's file through src/workspace/read-worktree-file.ts (readWorktreeText & co.), a run's output through src/verify/read-run-output.ts: a plain read follows a test's link to /proc/self/environ, blocks on a FIFO, or reads /dev/zero forever.";
/** Modules that read only the bot's own files or the operator's, never a repository's: each is here for that reason. */
const READERS_OF_THE_BOTS_OWN_FILES = [
  "src/workspace/read-worktree-file.ts", // the gate itself
  "src/verify/read-run-output.ts", // the gate for a run's outputs
  "src/workspace/safe-path.ts", // writes through O_NOFOLLOW handles
  "src/workspace/commit-files.ts", // reads changed files through its own O_NOFOLLOW handle, with lstat/fstat checks
  "src/workspace/git.ts", // the .git pointer file the bot's own `git worktree add` wrote (.git is off limits to the gate)
  "src/workspace/repo-cache.ts", // the same pointer file
  "src/config/env-config.ts", // the operator's private key file
  "src/llm/prompts.ts", // prompts/
  "src/llm/transcript.ts", // the bot's transcripts, for --replay
  "src/version.ts", // package.json of the bot
  "src/cli/init-workflow-command.ts", // templates/
  "src/cli/action-workflow.ts", // templates/
  "src/cli/run-fix.ts", // --issue <file>, a file the user names on the command line
  "src/action/run-action.ts", // GITHUB_EVENT_PATH, written by the runner
  "src/verify/sandbox/process-limit.ts", // cgroup files
  "src/eval/humanevalfix-loader.ts", // datasets the operator points at
  "src/eval/local-task-loader.ts", // the same
  "src/eval/breakage-cases.ts", // the same
  "src/dashboard/demo-job-history.ts", // resources/dashboard-demo/, the sample history bundled with the bot
  "src/config/dotenv-file.ts", // the operator's .env
  "src/server/app-setup/app-manifest.ts", // app.yml
  "src/server/app-setup/write-app-env.ts", // the operator's .env, rewritten with the new App's keys
];

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "action/bundle/**",
      "node_modules/**",
      "coverage/**",
      "test/fixtures/**",
      "examples/**",
      "eval-results/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use a union of string literals instead of an enum." },
      ],
      eqeqeq: ["error", "always"],
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: READERS_OF_THE_BOTS_OWN_FILES,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: FS_MODULES.map((name) => ({ name, importNames: FS_READS, message: UNSAFE_READ })),
          // A model client is built in one place only, with the secret scrubber, budgets and prices.
          patterns: [
            {
              group: ["**/llm-client.ts", "**/llm-client"],
              importNames: ["openAiLlmClient"],
              message:
                "Build model clients with jobLlmClient (src/llm/job-llm-client.ts): it adds the scrubber, budgets, prices and a scrubbed transcript.",
            },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use a union of string literals instead of an enum." },
        ...FS_MODULES.map((name) => ({
          selector: `ImportDeclaration[source.value='${name}'] > :matches(ImportNamespaceSpecifier, ImportDefaultSpecifier)`,
          message: UNSAFE_READ,
        })),
        {
          selector: "CallExpression[callee.property.name='readFile'][callee.object.name=/[Hh]andle$/]",
          message: UNSAFE_READ,
        },
        // The same module reached around the import rule: `await import("node:fs/promises")`, `require("fs")`.
        { selector: `ImportExpression[source.value=${FS_SOURCE}]`, message: UNSAFE_READ },
        { selector: `CallExpression[callee.name='require'][arguments.0.value=${FS_SOURCE}]`, message: UNSAFE_READ },
      ],
    },
  },
);
