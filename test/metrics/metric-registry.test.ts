// The hand-written exposition format, read back by a Prometheus text-format parser and
// checked line by line: escaping of hostile label values, cumulative histogram buckets.
import { describe, expect, it } from "vitest";
import { MetricRegistry } from "../../src/metrics/metric-registry.ts";
import { histogram, parseMetrics, value } from "../support/prometheus-text.ts";

const problems = (text: string) => parseMetrics(text).problems;

describe("MetricRegistry", () => {
  it("writes counters and gauges a parser reads back, label values escaped", () => {
    const r = new MetricRegistry();
    const hostile = 'a"b\\c\nd} x 1';
    r.inc("t_total", "things", { reason: hostile });
    r.inc("t_total", "things", { reason: hostile }, 2);
    r.inc("t_total", "things", { reason: "plain" });
    r.set("g", "a gauge", { state: "queued" }, 4);
    r.declare("never_total", "declared, nothing counted", "counter");
    const text = r.render();
    const { families, problems } = parseMetrics(text);
    expect(problems).toEqual([]);
    expect(value(families, "t_total", { reason: hostile })).toBe(3);
    expect(value(families, "t_total", { reason: "plain" })).toBe(1);
    expect(value(families, "g", { state: "queued" })).toBe(4);
    expect(text).toContain("# TYPE never_total counter\n");
  });

  it("keeps histogram buckets cumulative with +Inf equal to the count", () => {
    const r = new MetricRegistry();
    for (const v of [0.5, 3, 3, 70, 5000]) r.observe("d_seconds", "durations", { stage: "total" }, v, [1, 5, 60]);
    const { families, problems } = parseMetrics(r.render());
    expect(problems).toEqual([]);
    expect(histogram(families, "d_seconds", { stage: "total" })).toEqual({
      count: 5,
      sum: 5076.5,
      buckets: { "1": 1, "5": 3, "60": 3, "+Inf": 5 },
    });
  });

  it("refuses what would break the format", () => {
    const r = new MetricRegistry();
    expect(() => r.inc("bad name", "x")).toThrow(/invalid metric name/);
    expect(() => r.inc("ok_total", "x", { "bad-label": "v" })).toThrow(/invalid label name/);
    expect(() => r.inc("ok_total", "x", {}, -1)).toThrow(/only goes up/);
    r.inc("ok_total", "x");
    expect(() => r.set("ok_total", "x", {}, 1)).toThrow(/is a counter/);
  });
});

describe("the strict reader", () => {
  it("finds samples without TYPE, families given twice, bad escapes and broken histograms", () => {
    expect(problems("a 1\n")).toEqual(["line 1: a has no TYPE line before it"]);
    expect(problems('# HELP a x\n# TYPE a gauge\na{l="x"y"} 1\n')).toEqual([
      'line 3 is not a sample (labels not separated by a comma): a{l="x"y"} 1',
    ]);
    expect(problems('# HELP a x\n# TYPE a gauge\na{l="x\\t"} 1\n')).toEqual([
      'line 3 is not a sample (label l has a bad escape): a{l="x\\t"} 1',
    ]);
    expect(problems("# HELP a x\n# TYPE a gauge\na 1\n# HELP b y\n# TYPE b gauge\nb 1\n# HELP a x\n")).toEqual([
      "line 7: a appears twice",
    ]);
    expect(
      problems('# HELP h x\n# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'),
    ).toEqual(["h[]: buckets not in order or not cumulative"]);
    expect(problems("# HELP a x\n# TYPE a gauge\na one\n")).toEqual(["line 3 is not a sample (bad value): a one"]);
  });
});
