// Counter and histogram families for the per-call metrics, kept as plain numbers and rendered by
// prom-client's registry at scrape time. prom-client's own children hash their label set into a string on
// every inc()/observe(); these series are objects the caller holds, so a call costs additions only.
import type { Metric } from "prom-client";

/** One counter series: its labels (fixed when made) and its running total. */
export interface CounterSeries {
  readonly labels: Readonly<Record<string, string>>;
  value: number;
}

/** One histogram series: cumulative counts are computed at scrape time from the per-bucket counts. */
export interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** counts[i]: observations ≤ bounds[i] and > bounds[i-1]; the last slot is +Inf. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

type Value = { value: number; labels: Record<string, string | number>; metricName?: string };

abstract class Family<S extends { labels: Readonly<Record<string, string>> }> {
  private readonly byKey = new Map<string, S>();
  protected readonly all: S[] = [];
  readonly aggregator = "sum" as const;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: "counter" | "histogram",
    private readonly labelNames: readonly string[],
  ) {}

  /** The series for these label values (in labelNames order), made on first use; callers keep it. */
  series(values: readonly string[]): S {
    const key = values.join("\u0000");
    let s = this.byKey.get(key);
    if (s === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i]!));
      s = this.make(labels);
      this.byKey.set(key, s);
      this.all.push(s);
    }
    return s;
  }

  protected abstract make(labels: Record<string, string>): S;
  protected abstract values(): Value[];

  /** What prom-client's registry reads (the shape its own metrics' get() returns). */
  async get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() };
  }

  /** Registered as one of prom-client's metrics: the registry only calls get() and reads name and type. */
  asMetric(): Metric {
    return this as unknown as Metric;
  }
}

export class CounterFamily extends Family<CounterSeries> {
  constructor(name: string, help: string, labelNames: readonly string[]) {
    super(name, help, "counter", labelNames);
  }

  protected make(labels: Record<string, string>): CounterSeries {
    return { labels, value: 0 };
  }

  protected values(): Value[] {
    return this.all.map((s) => ({ value: s.value, labels: s.labels }));
  }
}

export class HistogramFamily extends Family<HistogramSeries> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super(name, help, "histogram", labelNames);
  }

  protected make(labels: Record<string, string>): HistogramSeries {
    return { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
  }

  /** One observation, in seconds: a linear scan of a dozen bounds (cheaper than a search at this size). */
  observe(s: HistogramSeries, v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    s.counts[i]! += 1;
    s.sum += v;
    s.count += 1;
  }

  protected values(): Value[] {
    const out: Value[] = [];
    for (const s of this.all) {
      let acc = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        acc += s.counts[i]!;
        const le = i < this.bounds.length ? this.bounds[i]! : "+Inf";
        out.push({ value: acc, labels: { ...s.labels, le }, metricName: `${this.name}_bucket` });
      }
      out.push({ value: s.sum, labels: s.labels, metricName: `${this.name}_sum` });
      out.push({ value: s.count, labels: s.labels, metricName: `${this.name}_count` });
    }
    return out;
  }
}
