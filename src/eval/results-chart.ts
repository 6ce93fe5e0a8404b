// The results as an SVG bar chart: per strategy, solved and plausible out of the tasks.
import type { StrategySummary } from "./summarise-results.ts";

export function resultsChart(summaries: readonly StrategySummary[]): string {
  const barWidth = 48;
  const gap = 36;
  const height = 220;
  const top = 30;
  const plot = height - top - 40;
  const width = 60 + summaries.length * (barWidth + gap);
  const max = Math.max(1, ...summaries.map((s) => s.tasks));
  const escape = (t: string) =>
    t.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c] ?? c);
  const bars = summaries.map((s, i) => {
    const x = 50 + i * (barWidth + gap);
    const solved = (s.solved / max) * plot;
    const plausible = (s.plausible / max) * plot;
    const base = top + plot;
    return [
      `<rect x="${x}" y="${(base - solved).toFixed(1)}" width="${barWidth}" height="${solved.toFixed(1)}" fill="#2da44e"><title>${escape(s.strategy)}: ${s.solved} solved</title></rect>`,
      `<rect x="${x}" y="${(base - solved - plausible).toFixed(1)}" width="${barWidth}" height="${plausible.toFixed(1)}" fill="#d4a72c"><title>${escape(s.strategy)}: ${s.plausible} plausible</title></rect>`,
      `<text x="${x + barWidth / 2}" y="${base + 16}" text-anchor="middle" font-size="12">${escape(s.strategy)}</text>`,
      `<text x="${x + barWidth / 2}" y="${(base - solved - plausible - 4).toFixed(1)}" text-anchor="middle" font-size="11">${s.solved}/${s.tasks}</text>`,
    ].join("");
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">`,
    `<text x="10" y="18" font-size="13">solved (green) and plausible (yellow) of ${max} tasks</text>`,
    `<line x1="45" y1="${top + plot}" x2="${width - 10}" y2="${top + plot}" stroke="#888"/>`,
    ...bars,
    "</svg>",
    "",
  ].join("\n");
}
