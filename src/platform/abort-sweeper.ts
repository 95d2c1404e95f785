// One interval for the timeouts and client-abort checks of every upstream request in flight, instead of
// two timers and an abort listener per attempt. Side by side (three gateways each way, 32 connections),
// the per-attempt timers and listener cost ~8 µs of CPU per request, ~9 % of the gateway's total; a set
// entry and a property read every sweep cost next to nothing. The price is precision: a deadline or a
// client's departure is acted on within `everyMs` (10 ms), which no timeout in seconds notices.
// The interval runs only while something is watched: it stops when the last watched request is released
// (or a sweep finds nothing left). It used to stop only at a sweep that found nothing, to spare re-making
// the interval whenever the requests in flight touched zero; but a timer made and cleared costs ~100 ns
// in Bun, while that last sweep woke the process once more per stream at low load (a stream is watched
// only until its headers come, ~1 ms, so nearly every stream start left one 10 ms sweep behind it).
// Measured (bench/probes/syscalls.ts --concurrency 8): epoll waits per stream 8.07 → 5.99 (the minimal JS
// proxy 6.74), futex calls 1.21 → 0.67, context switches 6.25 → 4.75; side by side 0.98 per stream at 8
// streams (quartiles 0.90–1.00) and 0.99 per JSON request at 32 connections (0.97–1.01).
/** What the sweeper aborts: an UpstreamAbort (upstream-abort.ts) or an AbortController. */
export interface Abortable {
  abort(reason?: unknown): void;
}

export interface Watch {
  /** performance.now() after which the upstream request is aborted with a TimeoutError. */
  until: number;
  readonly client: AbortSignal;
  readonly upstream: Abortable;
}

export class AbortSweeper {
  private readonly watched = new Set<Watch>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly everyMs = 10) {}

  /** Aborts `upstream` when `client` aborts or `withinMs` pass, whichever comes first, until released. */
  watch(client: AbortSignal, upstream: Abortable, withinMs: number): Watch {
    const w: Watch = { until: performance.now() + withinMs, client, upstream };
    this.watched.add(w);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.everyMs);
      this.timer.unref?.();
    }
    return w;
  }

  release(w: Watch): void {
    this.watched.delete(w);
    if (this.watched.size === 0 && this.timer !== undefined) this.stop();
  }

  /** Number of requests watched (tests). */
  size(): number {
    return this.watched.size;
  }

  /** Whether the interval is running (tests). */
  running(): boolean {
    return this.timer !== undefined;
  }

  private sweep(): void {
    const now = performance.now();
    for (const w of this.watched) {
      if (w.client.aborted) {
        this.watched.delete(w);
        w.upstream.abort(new DOMException("client gone", "AbortError"));
      } else if (now >= w.until) {
        this.watched.delete(w);
        w.upstream.abort(new DOMException("timeout", "TimeoutError"));
      }
    }
    if (this.watched.size === 0) this.stop();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
