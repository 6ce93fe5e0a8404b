// The bot's own branches: `autogen/issue-<n>` (the fix of issue n) and
// `autogen/fix-<pr>-<sha7>` (the repair of pull request pr's red build at sha7).
export type BotBranch = { kind: "issue" | "fix"; number: number };

export function parseBotBranch(ref: string): BotBranch | undefined {
  const match = /^autogen\/(?:issue-(\d+)|fix-(\d+)-[0-9a-f]{7})$/.exec(ref);
  if (!match) return undefined;
  return match[1] !== undefined
    ? { kind: "issue", number: Number(match[1]) }
    : { kind: "fix", number: Number(match[2]) };
}

/** The branch of issue `number`'s fix. */
export const issueBranch = (number: number): string => `autogen/issue-${number}`;

/** The branch of the repair of pull request `number`'s red build at `headSha`. */
export const repairBranch = (number: number, headSha: string): string => `autogen/fix-${number}-${headSha.slice(0, 7)}`;
