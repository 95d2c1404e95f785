// One uPlot line chart over time (UTC), as wide as its container and resized with it. The container
// carries the chart's accessible name; the figures themselves are in the page's tables.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { h } from "preact";
import { useEffect, useRef } from "preact/hooks";

export interface Line {
  label: string;
  values: (number | null)[];
  /** Palette index: the groups table shows the same colour beside the group's name. */
  color: number;
  dashed?: boolean;
}

export const PALETTE = ["#0645ad", "#c0392b", "#1e7b34", "#8e44ad", "#d35400", "#16a085", "#5f6368", "#b7950b"];
const ERROR_RED = "#b00020";

export interface ChartProps {
  /** The chart's accessible name, e.g. "Requests and errors per hour". */
  label: string;
  /** Bucket starts, epoch seconds. */
  xs: number[];
  lines: Line[];
  format: (v: number) => string;
  /** Hourly axes name the hour (and the day at midnight); daily and weekly ones the day. */
  hourly: boolean;
}

const pad = (n: number) => String(n).padStart(2, "0");
/** An x-axis tick in UTC, 24-hour: "03-04" for a day, "14:00" for an hour (the day at midnight). */
function tick(sec: number, hourly: boolean): string {
  const d = new Date(sec * 1000);
  const day = `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return hourly && d.getUTCHours() !== 0 ? `${pad(d.getUTCHours())}:00` : day;
}

export function Chart({ label, xs, lines, format, hourly }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 220,
      // Buckets are UTC hours, days and weeks: the axis shows UTC, not the browser's zone.
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC"),
      legend: { show: false },
      scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      axes: [
        { values: (_u, splits) => splits.map((v) => tick(v, hourly)) },
        // As wide as the longest label ("$0.000040" needs more room than "12").
        { size: (_u, values) => 16 + 7 * Math.max(2, ...(values ?? []).map((v) => v.length)), values: (_u, splits) => splits.map(format) },
      ],
      series: [
        {},
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.color < 0 ? ERROR_RED : PALETTE[l.color % PALETTE.length],
          width: 2,
          dash: l.dashed ? [6, 4] : undefined,
          // A line with gaps (TTFT where a bucket had none) marks every value, or a lone one would not show.
          points: l.values.includes(null) ? { show: true, size: 6 } : { show: xs.length <= 14 },
        })),
      ],
    };
    const chart = new uPlot(opts, [xs, ...lines.map((l) => l.values)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(200, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [xs, lines, format, hourly]);
  return h("figure", { class: "chart" }, [
    h("figcaption", null, label),
    h("div", { ref: box, class: "chart-box", role: "img", "aria-label": `${label} chart` }),
  ]);
}
