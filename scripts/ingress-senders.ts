// bench:ingress's senders, in a process of their own (as GitHub is): `count` signed
// `issues.labeled` deliveries from `senders` concurrent connections to the webhook URL;
// prints one JSON line: each acknowledgement's time and status, the burst's length, and
// this process's event-loop delay (so a slow sender is seen, not blamed on the server).
//   node scripts/ingress-senders.ts <url> <secret> <count> <senders> <id-prefix> [first]
import { monitorEventLoopDelay } from "node:perf_hooks";
import { labeledBody, postDelivery } from "./ingress-support.ts";

const [url, secret, countArg, sendersArg, prefix, firstArg] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string | undefined,
];
const count = Number(countArg);
const target = new URL(url);
const first = Number(firstArg ?? 0);
const list = Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${first + i}`, body: labeledBody(first + i) }));
const acks: Array<{ ms: number; status: number; at: number }> = [];
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: Number(sendersArg) }, async () => {
    while (next < list.length) {
      const d = list[next++];
      if (!d) break;
      const t = performance.now();
      const status = await postDelivery(target, secret, d.id, d.body);
      acks.push({ ms: performance.now() - t, status, at: t - started });
    }
  }),
);
loop.disable();
process.stdout.write(
  `${JSON.stringify({ acks, burstMs: performance.now() - started, loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6 })}\n`,
);
