// The gate in front of every trigger: only people with write access start work (asked
// of the API for the actor who labelled or commented, never inferred from the label),
// bots never do, and one issue has at most one active job.
import type { Forge } from "../forge/forge.ts";

export type GateDecision = { allowed: true } | { allowed: false; reason: string };

const WRITERS = new Set(["admin", "maintain", "write"]);

export async function gate(
  forge: Forge,
  event: { owner: string; repo: string; actor: { login: string; type: string } },
): Promise<GateDecision> {
  if (event.actor.type === "Bot" || event.actor.login.endsWith("[bot]"))
    return { allowed: false, reason: `events from bots (${event.actor.login}) never start work` };
  const permission = await forge.permission(event.owner, event.repo, event.actor.login);
  if (!WRITERS.has(permission))
    return {
      allowed: false,
      reason: `${event.actor.login} has ${permission} permission; write, maintain or admin is needed`,
    };
  return { allowed: true };
}
