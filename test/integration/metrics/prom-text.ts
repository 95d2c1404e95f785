// A reader of the Prometheus text format (0.0.4) for the metrics tests: every sample line, in order.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    out.push({ name: m[1]!, labels, value: m[3] === "+Inf" ? Infinity : Number(m[3]) });
  }
  return out;
}

/** The samples of one name (a histogram's `_bucket`, `_sum` or `_count` by its full name), without the name. */
export function samples(all: readonly Sample[], name: string): { labels: Record<string, string>; value: number }[] {
  return all.filter((s) => s.name === name).map(({ labels, value }) => ({ labels, value }));
}
