// One interval for the timeouts and client-abort checks of every non-streaming upstream request in
// flight, instead of two timers and an abort listener per attempt. (A streaming attempt lives longer and
// has more limits; its session watches them and its client with one interval of its own:
// inference/stream-session.ts.) Side by side (three gateways each way, 32 connections),
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

/** A watch and where it sits in the sweeper's list (-1 once released). */
class Entry implements Watch {
  constructor(
    public until: number,
    readonly checkClientFrom: number,
    readonly client: ClientSide,
    readonly upstream: Abortable,
    public slot: number,
  ) {}
}

/**
 * The watched requests are an array whose entries know their index (release swaps the last one into the
 * gap), not a Set. A Set whose entries come and go thousands of times a second kept its deleted entries
 * reachable for JSC's young collections: each one promoted the requests released since the previous one
 * (bench/probes/eden-survivors.ts, JSON load at 32 connections: ~600 finished requests, each with its
 * Request, Headers, call context and upstream exchange, against the ~32 in flight), old garbage that only
 * the memory governor's full collections cleared. With the array, a young collection keeps what is in
 * flight: per 40,000 JSON requests at 32 connections (bench/threads.ts) 17 → 8–10 full collections and
 * 10.1 → 4.2–5.5 µs of collection per request.
 */
export class AbortSweeper {
  private readonly watched: Entry[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly everyMs = 10) {}

  /** Aborts `upstream` when `client` aborts (checked after the grace) or `withinMs` pass, whichever comes first, until released. */
  watch(client: ClientSide, upstream: Abortable, withinMs: number): Watch {
    const now = performance.now();
    const w = new Entry(now + withinMs, now + CLIENT_GRACE_MS, client, upstream, this.watched.length);
    this.watched.push(w);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.everyMs);
      this.timer.unref?.();
    }
    return w;
  }

  /** Stops watching `w` (a second release is harmless). */
  release(w: Watch): void {
    this.remove(w as Entry);
    if (this.watched.length === 0 && this.timer !== undefined) this.stop();
  }

  /** Number of requests watched (tests). */
  size(): number {
    return this.watched.length;
  }

  /** Whether the interval is running (tests). */
  running(): boolean {
    return this.timer !== undefined;
  }

  private remove(w: Entry): void {
    const i = w.slot;
    if (i < 0 || this.watched[i] !== w) return;
    const last = this.watched.pop()!;
    if (last !== w) {
      this.watched[i] = last;
      last.slot = i;
    }
    w.slot = -1;
  }

  private sweep(): void {
    const now = performance.now();
    // From the end: removing entry i moves the last one into slot i, and that one has been looked at.
    for (let i = this.watched.length - 1; i >= 0; i--) {
      const w = this.watched[i];
      if (w === undefined) continue; // an abort below released others synchronously
      if (now >= w.checkClientFrom && w.client.signal.aborted) {
        this.remove(w);
        w.upstream.abort(new DOMException("client gone", "AbortError"));
      } else if (now >= w.until) {
        this.remove(w);
        w.upstream.abort(new DOMException("timeout", "TimeoutError"));
      }
    }
    if (this.watched.length === 0) this.stop();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
