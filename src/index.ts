// The Probot app: wires webhook events to handlers, nothing else. Handlers decide and
// enqueue within GitHub's 10-second window; an event nobody handles is a no-op.
import type { ApplicationFunction, Probot } from "probot";

const app: ApplicationFunction = (probot: Probot) => {
  probot.onAny(async (context) => {
    probot.log.debug({ event: context.name, deliveryId: context.id }, "webhook received");
  });
  probot.onError(async (error) => {
    probot.log.error({ err: error, event: error.event?.name }, "webhook handler failed");
  });
};

export default app;
