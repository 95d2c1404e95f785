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
//
// The client's side is read lazily: Bun makes a request's AbortSignal on first access (a native
// EventTarget, hooked to the connection's close), ~2.8 µs per request in a bare Bun.serve handler (a
// paired micro-benchmark, twelve rounds of 20,000 requests: 36.0 → 38.8 µs), which most answers never
// need: an upstream that answers within CLIENT_GRACE_MS ends the watch first. A sweep reads the signal
// only of requests watched that long; Bun's signal made after the client left is already aborted, so
// nothing is missed, only acted on later: a departure within the grace is acted on at its end.
/** What the sweeper aborts: an UpstreamAbort (upstream-abort.ts) or an AbortController. */
export interface Abortable {
  abort(reason?: unknown): void;
}

/** The client's request as the sweeper sees it: its signal, read only once the grace has passed. */
export interface ClientSide {
  readonly signal: AbortSignal;
}

/** How long a watched request's client is not checked (the cost of reading its signal, above). */
export const CLIENT_GRACE_MS = 100;

export interface Watch {
  /** performance.now() after which the upstream request is aborted with a TimeoutError. */
  until: number;
  /** performance.now() from which the client's departure is checked. */
  readonly checkClientFrom: number;
  readonly client: ClientSide;
  readonly upstream: Abortable;
}

export class AbortSweeper {
  private readonly watched = new Set<Watch>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly everyMs = 10) {}

  /** Aborts `upstream` when `client` aborts (checked after the grace) or `withinMs` pass, whichever comes first, until released. */
  watch(client: ClientSide, upstream: Abortable, withinMs: number): Watch {
    const now = performance.now();
    const w: Watch = { until: now + withinMs, checkClientFrom: now + CLIENT_GRACE_MS, client, upstream };
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
      if (now >= w.checkClientFrom && w.client.signal.aborted) {
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
