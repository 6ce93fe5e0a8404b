// Real webhook payloads from @octokit/webhooks-examples, and GitHub-style signing.
import { createHmac } from "node:crypto";
import { createRequire } from "node:module";

type Example = { name: string; examples: Array<Record<string, unknown>> };
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as Example[];

/** The first example of `event` whose `action` is `action` (or any, when omitted). */
export function webhookExample(event: string, action?: string): Record<string, unknown> {
  const group = examples.find((e) => e.name === event);
  const payload = group?.examples.find((p) => action === undefined || p.action === action);
  if (!payload) throw new Error(`no @octokit/webhooks-examples payload for ${event}${action ? `.${action}` : ""}`);
  return structuredClone(payload);
}

export function signPayload(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export async function postWebhook(
  url: string,
  secret: string,
  event: string,
  payload: unknown,
  deliveryId: string,
  signature?: string,
): Promise<Response> {
  const body = JSON.stringify(payload);
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": deliveryId,
      "x-hub-signature-256": signature ?? signPayload(secret, body),
    },
    body,
  });
}
