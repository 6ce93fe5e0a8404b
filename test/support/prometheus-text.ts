// A strict reader of Prometheus's text exposition format (0.0.4), as a scraper reads a
// /metrics answer: HELP and TYPE before a family's samples, each family once, valid names,
// label values with only the three escapes, numbers Prometheus accepts; histogram buckets
// cumulative and ending in +Inf equal to _count. (parse-prometheus-text-format was tried:
// it drops the labels, _sum and _count of labelled histograms.)
export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; help: string; type: string; samples: Sample[] };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const NUMBER = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|NaN|[+-]Inf)$/;

function parseNumber(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  return Number(text);
}

/** One sample line, or a problem. */
function parseSample(line: string): Sample | string {
  const name = NAME.exec(line)?.[0];
  if (!name) return "no metric name";
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    rest = rest.slice(1);
    while (!rest.startsWith("}")) {
      const label = LABEL.exec(rest)?.[0];
      if (!label) return "bad label name";
      rest = rest.slice(label.length);
      if (!rest.startsWith('="')) return `label ${label} has no ="`;
      rest = rest.slice(2);
      let value = "";
      for (;;) {
        const c = rest[0];
        if (c === undefined || c === "\n") return `label ${label}'s value is not closed`;
        if (c === '"') break;
        if (c === "\\") {
          const next = rest[1];
          if (next === "\\") value += "\\";
          else if (next === '"') value += '"';
          else if (next === "n") value += "\n";
          else return `label ${label} has a bad escape`;
          rest = rest.slice(2);
        } else {
          value += c;
          rest = rest.slice(1);
        }
      }
      if (label in labels) return `label ${label} given twice`;
      labels[label] = value;
      rest = rest.slice(1);
      if (rest.startsWith(",")) rest = rest.slice(1);
      else if (!rest.startsWith("}")) return "labels not separated by a comma";
    }
    rest = rest.slice(1);
  }
  const parts = rest.split(" ");
  if (
    parts[0] !== "" ||
    parts.length < 2 ||
    parts.length > 3 ||
    !NUMBER.test(parts[1] ?? "") ||
    (parts[2] !== undefined && !/^-?\d+$/.test(parts[2]))
  )
    return "bad value";
  return { name, labels, value: parseNumber(parts[1] ?? "") };
}

export function parseMetrics(text: string): { families: Family[]; problems: string[] } {
  const problems: string[] = [];
  const families: Family[] = [];
  const seen = new Set<string>();
  let current: Family | undefined;
  if (!text.endsWith("\n")) problems.push("the text does not end with a newline");
  for (const [i, line] of text.split("\n").entries()) {
    if (line === "") continue;
    const at = `line ${i + 1}`;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name = "", rest = ""] = meta;
      if (current?.name !== name) {
        if (seen.has(name)) problems.push(`${at}: ${name} appears twice`);
        seen.add(name);
        current = { name, help: "", type: "", samples: [] };
        families.push(current);
      }
      if (kind === "HELP") current.help = rest.replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
      else if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(rest))
        problems.push(`${at}: bad type ${rest}`);
      else current.type = rest;
      continue;
    }
    if (line.startsWith("#")) continue;
    const sample = parseSample(line);
    if (typeof sample === "string") {
      problems.push(`${at} is not a sample (${sample}): ${line}`);
      continue;
    }
    const base = current?.type === "histogram" ? sample.name.replace(/_(bucket|sum|count)$/, "") : sample.name;
    if (!current || current.name !== base || !current.type)
      problems.push(`${at}: ${sample.name} has no TYPE line before it`);
    else if (!current.help) problems.push(`${at}: ${current.name} has no HELP line`);
    else current.samples.push(sample);
  }
  for (const family of families.filter((f) => f.type === "histogram")) problems.push(...histogramProblems(family));
  return { families, problems };
}

const labelKey = (labels: Record<string, string>) =>
  JSON.stringify(
    Object.entries(labels)
      .filter(([k]) => k !== "le")
      .sort(),
  );

function histogramProblems(family: Family): string[] {
  const problems: string[] = [];
  const groups = new Map<string, Sample[]>();
  for (const s of family.samples) groups.set(labelKey(s.labels), [...(groups.get(labelKey(s.labels)) ?? []), s]);
  for (const [key, samples] of groups) {
    const buckets = samples
      .filter((s) => s.name.endsWith("_bucket"))
      .map((s) => [parseNumber(s.labels.le ?? "NaN"), s.value] as const);
    for (let i = 1; i < buckets.length; i++)
      if ((buckets[i]?.[0] ?? 0) <= (buckets[i - 1]?.[0] ?? 0) || (buckets[i]?.[1] ?? 0) < (buckets[i - 1]?.[1] ?? 0))
        problems.push(`${family.name}${key}: buckets not in order or not cumulative`);
    const count = samples.find((s) => s.name.endsWith("_count"))?.value;
    if (buckets.at(-1)?.[0] !== Infinity || buckets.at(-1)?.[1] !== count)
      problems.push(`${family.name}${key}: +Inf bucket missing or not the count`);
    if (!samples.some((s) => s.name.endsWith("_sum"))) problems.push(`${family.name}${key}: no _sum`);
  }
  return problems;
}

const includes = (labels: Record<string, string>, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([k, v]) => labels[k] === v);

/** The value of the one sample named `name` whose labels include `labels` (undefined when none). */
export function value(families: Family[], name: string, labels: Record<string, string> = {}): number | undefined {
  const matches = families.flatMap((f) => f.samples).filter((s) => s.name === name && includes(s.labels, labels));
  if (matches.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${matches.length} samples`);
  return matches[0]?.value;
}

/** The sum of every sample named `name`. */
export function total(families: Family[], name: string): number {
  return families
    .flatMap((f) => f.samples)
    .filter((s) => s.name === name)
    .reduce((sum, s) => sum + s.value, 0);
}

/** A histogram's count, sum and buckets (by `le`) for the labels given. */
export function histogram(
  families: Family[],
  name: string,
  labels: Record<string, string>,
): { count: number; sum: number; buckets: Record<string, number> } | undefined {
  const count = value(families, `${name}_count`, labels);
  if (count === undefined) return undefined;
  const buckets = Object.fromEntries(
    families
      .flatMap((f) => f.samples)
      .filter((s) => s.name === `${name}_bucket` && includes(s.labels, labels))
      .map((s) => [s.labels.le ?? "", s.value]),
  );
  return { count, sum: value(families, `${name}_sum`, labels) ?? NaN, buckets };
}
