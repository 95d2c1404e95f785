// One streaming attempt's lifecycle: connecting (until the upstream's response headers) → awaiting_first
// (until its first content; the attempt may still fail over) → committed (the client is being served)
// → settled (exactly once). The session owns the attempt's deadlines (connect, first content, idle
// between reads, the whole stream, the drain bound after the client left), the SSE keep-alives during
// the client's silences, and the client's departure: before commit it stops the upstream and the attempt
// ends cancelled; after it the client's side stops writing and the upstream is read on, unwritten, for
// its usage until the drain bound. Reading the upstream is UpstreamEvents' (upstream-events.ts), writing
// to the client the committed stream's (committed-stream.ts); both tell the session what happens.
//
// Every deadline and the keep-alive are watched by one interval per stream rather than a timer per read
// (creating and clearing a timer per chunk was a measurable share of a stream's CPU): each read only
// moves a number. It ticks at a tenth of the tightest limit in force (25 ms to 1 s): a 60 s idle limit
// costs one wake-up a second; a much shorter limit later (the drain bound, the total limit's end)
// re-arms it finer.
import { realClock, type Cancel, type Clock } from "../platform/clock";
import type { Abortable, ClientSide } from "../platform/abort-sweeper";

export type StreamState = "connecting" | "awaiting_first" | "committed" | "settled";

/** Which limit passed: the headers', the first content's, the idle or total limit, or the drain bound. */
export type Expiry = "connect" | "first_byte" | "idle" | "total" | "drain";

export interface SessionLimits {
  /** From the send until the response headers. */
  connectMs: number;
  /** From the send until the first content. */
  firstByteMs: number;
  /** Between two reads of a committed stream. */
  idleMs: number;
  /** From the send to the stream's end, however lively. */
  totalMs: number;
  /** How long a committed stream is read on for its usage after the client left. */
  drainMs: number;
}

/** The upstream once its answer has come: the session stops it when a limit passes or the client leaves first. */
export interface SessionUpstream {
  /** Stops the stream; a reader waiting on it finds a timeout saying which limit passed, or (cancelled) a broken stream. */
  interrupt(why: Expiry | "cancelled"): void;
}

/** The client's side of a committed stream. */
export interface SessionClient {
  /** The client left: write nothing more; read the upstream on (unwritten) until its usage or the drain bound. */
  left(): void;
  /** Nothing was written for the keep-alive interval: write an SSE keep-alive comment. */
  ping(): void;
}

const timeout = () => new DOMException("timeout", "TimeoutError");
const clientGone = () => new DOMException("client gone", "AbortError");

export class StreamSession {
  private current: StreamState = "connecting";
  private gone = false;
  /** The clock's time of the send: TTFT, latency and the total limit count from here. */
  readonly t0: number;
  /** The clock's time at which the current wait has failed (Infinity while none is watched). */
  private deadline: number;
  /** The earliest of the total limit's end and the drain bound, once committed. */
  private bound = Infinity;
  private drainUntil = Infinity;
  private upstream: SessionUpstream | null = null;
  private client: SessionClient | null = null;
  private keepAliveMs = Infinity;
  /** Pings are due from the client side's first write until the client leaves. */
  private pinging = false;
  private lastWrite = 0;
  private stopTimer: Cancel | null = null;
  /** The interval's period (ms). */
  private every = Infinity;
  private signal: AbortSignal | null = null;
  private readonly onTick = () => this.tick();
  private readonly onAbort = () => this.clientLeft();

  constructor(
    private readonly limits: SessionLimits,
    /** The upstream request's cancel switch: what the session stops until the answer's events exist. */
    private readonly request: Abortable,
    private readonly clock: Clock = realClock,
  ) {
    this.t0 = clock.now();
    this.deadline = this.t0 + limits.connectMs;
    this.arm(limits.connectMs);
  }

  get state(): StreamState {
    return this.current;
  }

  /** The client went away before the attempt settled. */
  get clientGone(): boolean {
    return this.gone;
  }

  now(): number {
    return this.clock.now();
  }

  /** The client's departure ends or drains the attempt (one listener for the attempt's whole life). */
  watch(client: ClientSide): void {
    const signal = client.signal;
    if (signal.aborted) return this.clientLeft();
    this.signal = signal;
    signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The response headers came: the answer's events stand for the upstream now; the first content is awaited. */
  headers(upstream: SessionUpstream): void {
    if (this.current !== "connecting") return;
    this.current = "awaiting_first";
    this.upstream = upstream;
    if (this.gone) return upstream.interrupt("cancelled"); // the request's abort raced its answer
    this.deadline = this.t0 + this.limits.firstByteMs;
    this.arm(this.limits.firstByteMs);
  }

  /**
   * The first content arrived: the attempt answers the client now. No idle limit runs until the client's
   * side waits for a read (waiting): a body not pulled yet is not timed out.
   */
  commit(): void {
    if (this.current !== "awaiting_first") return;
    this.current = "committed";
    this.deadline = Infinity;
    this.bound = this.t0 + this.limits.totalMs;
  }

  /** The client's side of the committed stream: told when the client leaves (at once if it has already). */
  serve(client: SessionClient, keepAliveMs: number): void {
    this.client = client;
    this.keepAliveMs = keepAliveMs;
    if (this.gone) queueMicrotask(() => client.left());
  }

  /** The client side made its first write: keep-alives are due from now, after each silence of keepAliveMs. */
  writing(): void {
    if (this.current !== "committed" || this.gone) return;
    this.pinging = true;
    this.lastWrite = this.clock.now();
    this.arm(Math.min(this.limits.idleMs, this.keepAliveMs));
  }

  /**
   * The client's side has taken everything the last read brought (and written some, if `wrote`): the
   * next read must come within the idle limit, or the total limit's or drain bound's rest if sooner.
   */
  waiting(wrote: boolean): void {
    const now = this.clock.now();
    if (wrote) this.lastWrite = now;
    const until = now + this.limits.idleMs;
    if (until <= this.bound) {
      this.deadline = until;
      return;
    }
    this.deadline = this.bound;
    this.arm(this.bound - now);
  }

  /** The client went away (its signal, the body's cancel, or a refused write): handled once, by state. */
  clientLeft(): void {
    if (this.gone || this.current === "settled") return;
    this.gone = true;
    this.unwatch();
    if (this.current !== "committed") {
      // The attempt ends here (its owner settles it as cancelled): no limit is watched any more.
      this.deadline = Infinity;
      this.disarm();
      return this.stop("cancelled");
    }
    this.pinging = false;
    this.drainUntil = this.clock.now() + this.limits.drainMs;
    if (this.drainUntil < this.bound) this.bound = this.drainUntil;
    if (this.deadline > this.bound) this.deadline = this.bound;
    this.arm(this.limits.drainMs);
    this.client?.left();
  }

  /** The attempt is over: true for the first call only (whichever of end, failure or cancellation comes first). */
  settle(): boolean {
    if (this.current === "settled") return false;
    this.current = "settled";
    this.pinging = false;
    this.deadline = Infinity;
    this.disarm();
    this.unwatch();
    return true;
  }

  private tick(): void {
    const now = this.clock.now();
    if (now >= this.deadline) return this.expire(now);
    if (this.pinging && now - this.lastWrite >= this.keepAliveMs) {
      this.lastWrite = now;
      this.client!.ping();
    }
  }

  /** A deadline passed: nothing more is watched; the upstream is stopped, and its reader settles. */
  private expire(now: number): void {
    this.deadline = Infinity;
    this.pinging = false;
    this.disarm();
    const state = this.current;
    if (state === "connecting") return this.stop("connect");
    if (state === "awaiting_first") return this.stop("first_byte");
    if (now >= this.drainUntil) return this.stop("drain");
    this.stop(now >= this.t0 + this.limits.totalMs ? "total" : "idle");
  }

  private stop(why: Expiry | "cancelled"): void {
    if (this.upstream !== null) this.upstream.interrupt(why);
    else this.request.abort(why === "cancelled" ? clientGone() : timeout());
  }

  /** Runs the interval at a tenth of `ms`, re-made only when that is much finer than the running one. */
  private arm(ms: number): void {
    if (this.current === "settled") return;
    const every = Math.min(1_000, Math.max(25, ms / 10));
    if (this.stopTimer !== null) {
      if (every * 2 > this.every) return;
      this.stopTimer();
    }
    this.every = every;
    this.stopTimer = this.clock.every(every, this.onTick);
  }

  private disarm(): void {
    this.stopTimer?.();
    this.stopTimer = null;
    this.every = Infinity;
  }

  private unwatch(): void {
    this.signal?.removeEventListener("abort", this.onAbort);
    this.signal = null;
  }
}
