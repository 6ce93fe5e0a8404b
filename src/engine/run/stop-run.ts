// Thrown anywhere inside a run to end it with a named stop reason and a message.
import type { Outcome } from "../task.ts";

export class Stop extends Error {
  readonly reason: Outcome["stopReason"];
  constructor(reason: Outcome["stopReason"], message: string) {
    super(message);
    this.reason = reason;
  }
}
