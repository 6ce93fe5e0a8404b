// `/autogen <command>` on the first line of a comment.
export type Command = { kind: "fix" } | { kind: "plan" } | { kind: "retry"; hint: string } | { kind: "stop" };

export function parseCommand(body: string): Command | undefined {
  const first = body.trim().split("\n")[0]?.trim() ?? "";
  const match = /^\/autogen\s+(fix|plan|retry|stop)\b\s*(.*)$/i.exec(first);
  if (!match) return undefined;
  const verb = (match[1] ?? "").toLowerCase();
  if (verb === "retry") return { kind: "retry", hint: (match[2] ?? "").slice(0, 2000) };
  return { kind: verb as "fix" | "plan" | "stop" };
}
