// The one status comment per job: found again by its hidden marker and edited in place.
// A checklist of the stages with their results, then the final summary or why it stopped.
export type StatusStep = {
  name: string;
  state: "pending" | "running" | "done" | "failed" | "skipped";
  detail?: string | undefined;
};

export function statusMarker(owner: string, repo: string, number: number): string {
  return `<!-- autogen-bot:status ${owner}/${repo}#${number} -->`;
}

export function renderStatus(marker: string, steps: StatusStep[], summary?: string): string {
  const icon = { pending: "⬜", running: "⏳", done: "✅", failed: "❌", skipped: "➖" } as const;
  return [
    marker,
    "**autogen-bot** is working on this.",
    "",
    ...steps.map((s) => `- ${icon[s.state]} ${s.name}${s.detail ? `: ${s.detail}` : ""}`),
    ...(summary ? ["", summary] : []),
  ].join("\n");
}
