// `npm run bench:prompts -- <transcripts> [<transcripts before>]`: what the model was sent,
// from recorded transcripts (default bench/scripted-transcripts, one folder per strategy, one
// file per task): calls per task by stage, prompt characters per call, and the characters a
// provider's prefix cache could not reuse (those after the longest prefix shared with an
// earlier call of the same task). Given a second folder, prints both and the change.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readTranscript, type TranscriptEntry } from "../src/llm/transcript.ts";

type TaskFigures = { strategy: string; task: string; stages: string[]; chars: number[]; fresh: number[] };

function sentText(entry: TranscriptEntry): string {
  return entry.messages.map((m) => `${m.role}\n${m.content}\n`).join("");
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function figures(dir: string): TaskFigures[] {
  if (!existsSync(dir))
    throw new Error(`${dir} does not exist: give a folder of transcripts (one folder per strategy)`);
  const out: TaskFigures[] = [];
  for (const strategy of readdirSync(dir).sort()) {
    const folder = join(dir, strategy);
    for (const file of readdirSync(folder)
      .filter((f) => f.endsWith(".jsonl"))
      .sort()) {
      // Repair turns are part of one call; a call is one transcript entry of attempt 1.
      const entries = readTranscript(join(folder, file)).filter((e) => e.attempt === 1);
      const texts = entries.map(sentText);
      out.push({
        strategy,
        task: file.replace(/\.jsonl$/, ""),
        stages: entries.map((e) => e.stage),
        chars: texts.map((t) => t.length),
        fresh: texts.map(
          (t, i) => t.length - Math.max(0, ...texts.slice(0, i).map((earlier) => commonPrefix(earlier, t))),
        ),
      });
    }
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : Math.round(((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2);
}

function byStage(f: TaskFigures): string {
  const counts = new Map<string, { calls: number; chars: number }>();
  f.stages.forEach((stage, i) => {
    const c = counts.get(stage) ?? { calls: 0, chars: 0 };
    counts.set(stage, { calls: c.calls + 1, chars: c.chars + (f.chars[i] as number) });
  });
  return [...counts].map(([stage, c]) => `${stage} ${c.calls}×${Math.round(c.chars / c.calls)}`).join(", ");
}

function print(label: string, all: TaskFigures[]): void {
  console.log(`${label}`);
  for (const f of all) {
    const total = f.chars.reduce((a, b) => a + b, 0);
    const fresh = f.fresh.reduce((a, b) => a + b, 0);
    console.log(
      `  ${f.strategy}/${f.task}: ${f.stages.length} calls; ${total} chars sent (${fresh} not in an earlier call's prefix); median ${median(f.chars)} per call; by stage (calls×chars): ${byStage(f)}`,
    );
  }
  const chars = all.flatMap((f) => f.chars);
  console.log(
    `  all: ${all.length} tasks, ${chars.length} calls (median ${median(all.map((f) => f.stages.length))} per task), median ${median(chars)} chars per call, ${chars.reduce((a, b) => a + b, 0)} chars in all, ${all.flatMap((f) => f.fresh).reduce((a, b) => a + b, 0)} not in an earlier prefix`,
  );
}

const [after = "bench/scripted-transcripts", before] = process.argv.slice(2);
try {
  if (before) print(`before (${before}):`, figures(before));
  print(`${before ? "after" : "transcripts"} (${after}):`, figures(after));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
