// The server's logger: Probot's (pino, Probot's formatting to stdout; JSON with
// LOG_FORMAT=json), with the job id and delivery id in effect (log-context.ts) added to
// every line that does not already carry them. A destination stream replaces stdout
// (JSON lines; tests read them).
import { getTransformStream } from "@probot/pino";
import { pino, type DestinationStream, type Logger } from "pino";
import { logContext } from "../jobs/log-context.ts";

type Level = "trace" | "debug" | "info" | "warn" | "error" | "fatal";

export async function serverLog(options: {
  level: Level;
  env: Record<string, string | undefined>;
  destination?: DestinationStream | undefined;
}): Promise<Logger> {
  const pinoOptions = {
    level: options.level,
    name: "probot",
    messageKey: "msg",
    mixin: (_merge: object, _level: number, logger: Logger) => {
      const context = logContext();
      const bound = logger.bindings();
      const extra: Record<string, unknown> = {};
      if (context.jobId !== undefined && bound.jobId === undefined) extra.jobId = context.jobId;
      if (context.deliveryId !== undefined && bound.deliveryId === undefined) extra.deliveryId = context.deliveryId;
      return extra;
    },
  };
  if (options.destination) return pino(pinoOptions, options.destination);
  const env = options.env;
  const transform = await getTransformStream({
    logFormat: env.LOG_FORMAT === "json" ? "json" : env.LOG_FORMAT === "pretty" ? "pretty" : undefined,
    logLevelInString: env.LOG_LEVEL_IN_STRING === "true",
    sentryDsn: env.SENTRY_DSN,
  });
  transform.pipe(pino.destination(1) as unknown as NodeJS.WritableStream);
  return pino(pinoOptions, transform);
}
