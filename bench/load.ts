// The load generator: a small Bun client, keep-alive connections (fetch's pool), a fixed number of
// workers each issuing requests back to back until a bounded total is reached.
import { JSON_TEXT } from "./mock-upstream";
import { CHAT_MESSAGES, KINDS, type StreamKind } from "./stream-kinds";

export type TargetName = "direct" | "proxy" | "minimal" | "switchyard";

export interface Target {
  name: TargetName;
  /** Full URL of the kind's path (POST /v1/chat/completions for chat). */
  url: string;
  /** Which stream runStreams sends and checks (stream-kinds.ts); chat when absent. */
  kind?: StreamKind;
  headers: Record<string, string>;
  /** The process whose CPU is charged to the target; null for direct (no process in between). */
  pid: number | null;
  /** Only Switchyard adds routing_metadata. */
  expectRouting: boolean;
}

export const JSON_BODY = JSON.stringify({ model: "bench/chat", messages: CHAT_MESSAGES, max_tokens: 64, temperature: 0 });

export interface JsonRun {
  count: number;
  errors: number;
  firstError?: string;
  wallMs: number;
  latencies: number[];
}

async function workers(concurrency: number, total: number, one: () => Promise<void>): Promise<number> {
  let issued = 0;
  const start = performance.now();
  const worker = async () => {
    while (issued < total) {
      issued++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return performance.now() - start;
}

export async function runJson(t: Target, total: number, concurrency: number): Promise<JsonRun> {
  const run: JsonRun = { count: 0, errors: 0, wallMs: 0, latencies: [] };
  const fail = (why: string) => {
    run.errors++;
    run.firstError ??= why;
  };
  run.wallMs = await workers(concurrency, total, async () => {
    const t0 = performance.now();
    try {
      const res = await fetch(t.url, { method: "POST", headers: t.headers, body: JSON_BODY });
      const text = await res.text();
      const ms = performance.now() - t0;
      run.count++;
      if (res.status !== 200) return fail(`HTTP ${res.status}: ${text.slice(0, 300)}`);
      if (!text.includes(JSON_TEXT)) return fail(`unexpected body: ${text.slice(0, 300)}`);
      if (t.expectRouting && !text.includes('"routing_metadata"')) return fail("no routing_metadata");
      run.latencies.push(ms);
    } catch (err) {
      run.count++;
      fail(String(err));
    }
  });
  return run;
}

export interface StreamRun {
  count: number;
  complete: number;
  firstFailure?: string;
  wallMs: number;
  /** Time to the first body byte carrying an event. */
  ttfb: number[];
  /** Time to the end of the stream. */
  total: number[];
}

export async function runStreams(t: Target, total: number, concurrency: number): Promise<StreamRun> {
  const run: StreamRun = { count: 0, complete: 0, wallMs: 0, ttfb: [], total: [] };
  const decoder = new TextDecoder();
  const kind = KINDS[t.kind ?? "chat"];
  run.wallMs = await workers(concurrency, total, async () => {
    const t0 = performance.now();
    let first = -1;
    let text = "";
    let why: string | null;
    try {
      const res = await fetch(t.url, { method: "POST", headers: t.headers, body: kind.body });
      if (res.status !== 200 || !res.body) {
        why = `HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`;
      } else {
        const reader = res.body.getReader();
        for (let r = await reader.read(); !r.done; r = await reader.read()) {
          const s = decoder.decode(r.value, { stream: true });
          // SSE comments (keep-alives) are not the first byte of the answer.
          if (first < 0 && s.includes("data:")) first = performance.now() - t0;
          text += s;
        }
        why = kind.check(text, t.expectRouting);
      }
    } catch (err) {
      why = String(err);
    }
    run.count++;
    if (why) {
      run.firstFailure ??= why;
      return;
    }
    run.complete++;
    run.ttfb.push(first);
    run.total.push(performance.now() - t0);
  });
  return run;
}

/**
 * How much load a target gets before anything is measured: the JIT's optimising compiles are a start-up
 * cost that a long-running gateway does not pay per request. Counted with BUN_JSC_reportFTLCompileTimes
 * in windows of 40,000 requests or 2,048 streams: after 30,000 requests the JSON path compiles ~1 µs per
 * request; the stream path's own functions (called once per stream) were still being FTL-compiled for
 * 30–60 µs per stream until ~14,000 streams (single functions take 30–90 ms each on the bench VM), and
 * went quiet after. The streams run 128 at a time, so the warm-up takes ~15 s per target.
 * The two loads run at the same time, as a gateway's mixed traffic does: run one after the other, the
 * functions both paths share (the record's build, the attempt's plan, the upstream request, the answer's
 * head, the stream's end) were FTL-compiled for the JSON load, thrown away once streams changed their
 * types, and compiled again only in the measured stream rounds (~140 ms of compiling in a 4,000-stream
 * window after the whole warm-up, `bench/threads.ts`, 2026-11-27; one such round read ~1.5× its
 * neighbours). Together: none in that window. Where the bench also measures the Messages and Responses
 * streams, each of them gets its own `streams` at the same time, for the same reason, the 128 concurrent
 * streams shared between the kinds: at 128 of each the warm-up left the gateway's heap larger (idle RSS
 * 91–103 MB against 82–85, the 128-stream rounds' peak 92–99 against 89; bench/NOTES.md, session 41).
 */
export const WARMUP = { requests: 30_000, streams: 14_336 };

/**
 * Runs the warm-up load: JSON requests to `t`, streams to each of `streamTargets` (the same process under
 * each stream kind's URL), all at once. A failure (wrong config, broken target) is thrown, not measured.
 */
export async function warmUp(t: Target, w: { requests: number; streams: number } = WARMUP, streamTargets: Target[] = [t]): Promise<void> {
  const concurrency = Math.max(1, Math.round(128 / streamTargets.length));
  const [json, ...streams] = await Promise.all([
    runJson(t, w.requests, 32),
    ...streamTargets.map((s) => runStreams(s, w.streams, concurrency)),
  ]);
  if (json!.firstError) throw new Error(`${t.name} warm-up failed: ${json!.firstError}`);
  streams.forEach((s, i) => {
    if (s.firstFailure) throw new Error(`${t.name} warm-up ${streamTargets[i]!.kind ?? "chat"} stream failed: ${s.firstFailure}`);
  });
}
