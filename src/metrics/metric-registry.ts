// Counters, gauges and histograms kept in this process, written out in Prometheus's text
// exposition format (version 0.0.4): `# HELP`, `# TYPE`, then one sample per line, label
// values escaped (backslash, double quote, newline) and histogram buckets cumulative.
export type Labels = Record<string, string>;
export const DEFAULT_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

type Family = {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  samples: Map<string, { labels: Labels; value: number }>;
  buckets?: number[];
  histograms?: Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>;
};

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const entries = Object.entries(labels);
  if (extra) entries.push(extra);
  if (entries.length === 0) return "";
  return `{${entries.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",")}}`;
}

function key(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

export class MetricRegistry {
  private readonly families = new Map<string, Family>();

  private family(name: string, help: string, type: Family["type"], buckets?: number[]): Family {
    if (!NAME.test(name)) throw new Error(`invalid metric name: ${name}`);
    const existing = this.families.get(name);
    if (existing) {
      if (existing.type !== type) throw new Error(`metric ${name} is a ${existing.type}, not a ${type}`);
      return existing;
    }
    const created: Family = {
      name,
      help,
      type,
      samples: new Map(),
      ...(buckets ? { buckets: [...buckets].sort((a, b) => a - b), histograms: new Map() } : {}),
    };
    this.families.set(name, created);
    return created;
  }

  private checkLabels(labels: Labels): void {
    for (const name of Object.keys(labels))
      if (!LABEL.test(name) || name === "le") throw new Error(`invalid label name: ${name}`);
  }

  /** Declares a metric so it is written (with no samples) before anything is counted. */
  declare(name: string, help: string, type: "counter" | "gauge"): void {
    this.family(name, help, type);
  }

  declareHistogram(name: string, help: string, buckets: number[] = DEFAULT_BUCKETS): void {
    this.family(name, help, "histogram", buckets);
  }

  inc(name: string, help: string, labels: Labels = {}, by = 1): void {
    if (by < 0) throw new Error("a counter only goes up");
    this.checkLabels(labels);
    const family = this.family(name, help, "counter");
    const k = key(labels);
    const sample = family.samples.get(k) ?? { labels, value: 0 };
    sample.value += by;
    family.samples.set(k, sample);
  }

  set(name: string, help: string, labels: Labels, value: number): void {
    this.checkLabels(labels);
    this.family(name, help, "gauge").samples.set(key(labels), { labels, value });
  }

  observe(name: string, help: string, labels: Labels, value: number, buckets: number[] = DEFAULT_BUCKETS): void {
    this.checkLabels(labels);
    const family = this.family(name, help, "histogram", buckets);
    const bounds = family.buckets ?? DEFAULT_BUCKETS;
    const histograms = family.histograms ?? new Map();
    const k = key(labels);
    const h = histograms.get(k) ?? { labels, counts: bounds.map(() => 0), sum: 0, count: 0 };
    bounds.forEach((bound, i) => {
      if (value <= bound) h.counts[i] = (h.counts[i] ?? 0) + 1;
    });
    h.sum += value;
    h.count += 1;
    histograms.set(k, h);
  }

  /** The exposition text of every metric here. */
  render(): string {
    const lines: string[] = [];
    for (const family of this.families.values()) {
      lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
      if (family.type === "histogram") {
        for (const h of family.histograms?.values() ?? []) {
          (family.buckets ?? []).forEach((bound, i) =>
            lines.push(`${family.name}_bucket${labelText(h.labels, ["le", formatValue(bound)])} ${h.counts[i] ?? 0}`),
          );
          lines.push(
            `${family.name}_bucket${labelText(h.labels, ["le", "+Inf"])} ${h.count}`,
            `${family.name}_sum${labelText(h.labels)} ${formatValue(h.sum)}`,
            `${family.name}_count${labelText(h.labels)} ${h.count}`,
          );
        }
      } else {
        for (const s of family.samples.values())
          lines.push(`${family.name}${labelText(s.labels)} ${formatValue(s.value)}`);
      }
    }
    return `${lines.join("\n")}\n`;
  }
}
