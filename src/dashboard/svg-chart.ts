// Bar charts as inline SVG, drawn on the server: stacked series per column, labelled axes,
// a <title> per bar for the exact figure. Every label is escaped.
import { html, type Html } from "./html.ts";

export type ChartSeries = { name: string; color: string };
export type ChartColumn = { label: string; values: number[] };

const W = 560;
const H = 220;
const PAD = { left: 48, right: 12, top: 28, bottom: 36 };

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * power >= value) ?? 10;
  return step * power;
}

/** Figures with thousands separators (1,250 jobs; 2,500.5 minutes), whatever the server's locale. */
function fmt(value: number): string {
  const digits = Number.isInteger(value) ? 0 : value < 1 ? 3 : 1;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function barChart(options: {
  title: string;
  unit: string;
  series: ChartSeries[];
  columns: ChartColumn[];
}): Html {
  const { series, columns } = options;
  const max = niceMax(Math.max(0, ...columns.map((c) => c.values.reduce((a, b) => a + b, 0))));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = columns.length > 0 ? plotW / columns.length : plotW;
  const barW = Math.max(4, Math.min(48, slot * 0.6));
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const bars = columns.map((column, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    let base = 0;
    const parts = column.values.map((value, s) => {
      const top = y(base + value);
      const height = y(base) - top;
      base += value;
      if (value <= 0) return html``;
      const name = series[s]?.name ?? "";
      return html`<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barW.toFixed(1)}" height="${height.toFixed(1)}" fill="${series[s]?.color ?? "#888"}"><title>${column.label}: ${fmt(value)} ${options.unit}${name ? ` ${name}` : ""}</title></rect>`;
    });
    const labelX = (x + barW / 2).toFixed(1);
    // Narrow columns: a date loses its year under the bar (the bar's title keeps it), so labels do not overlap.
    const shown = slot < 64 && /^\d{4}-\d\d-\d\d$/.test(column.label) ? column.label.slice(5) : column.label;
    return html`${parts}<text x="${labelX}" y="${H - PAD.bottom + 14}" text-anchor="middle" font-size="10">${shown}</text>`;
  });
  // No column, or only zeros (no fixed issue yet, no PR yet): say so rather than draw bare axes.
  const empty = columns.every((c) => c.values.every((v) => v <= 0))
    ? [html`<text x="${W / 2}" y="${H / 2}" text-anchor="middle" font-size="12" fill="#666">no data yet</text>`]
    : [];
  const ticks = (empty.length ? [] : [0, 0.5, 1]).map(
    (f) =>
      html`<text x="${PAD.left - 6}" y="${(y(max * f) + 3).toFixed(1)}" text-anchor="end" font-size="10">${fmt(max * f)}</text><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(max * f).toFixed(1)}" y2="${y(max * f).toFixed(1)}" stroke="#ddd"/>`,
  );
  const legend =
    series.length > 1
      ? series.map(
          (s, i) =>
            html`<rect x="${PAD.left + i * 110}" y="${H - 12}" width="10" height="10" fill="${s.color}"/><text x="${PAD.left + i * 110 + 14}" y="${H - 3}" font-size="10">${s.name}</text>`,
        )
      : [];
  return html`<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H + (legend.length ? 6 : 0)}" width="${W}" height="${H + (legend.length ? 6 : 0)}" role="img" aria-label="${options.title}"><text x="${PAD.left}" y="16" font-size="13" font-weight="bold">${options.title}</text><text x="${W - PAD.right}" y="16" text-anchor="end" font-size="10" fill="#666">${options.unit}</text>${ticks}${bars}${legend}${empty}</svg></figure>`;
}
