// Lint: the recommended JavaScript and TypeScript rules, plus the house habits of
// ../shared/docs/style.md that a linter can check (no `any` at boundaries, no enums).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "action/bundle/**", "node_modules/**", "coverage/**", "test/fixtures/**", "examples/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly" },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-syntax": ["error", { selector: "TSEnumDeclaration", message: "Use a union of string literals instead of an enum." }],
      eqeqeq: ["error", "always"],
    },
  },
  {
    // A model client is built in one place only, with the secret scrubber, budget and prices (src/llm/make-llm.ts).
    files: ["src/**/*.ts"],
    ignores: ["src/llm/make-llm.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/llm-client.ts", "**/llm-client"], importNames: ["openAiLlmClient"], message: "Build model clients with llmFactory (src/llm/make-llm.ts): it adds the scrubber, budget and prices." }] },
      ],
    },
  },
);
