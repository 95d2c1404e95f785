// Time as the stream session sees it (inference/stream-session.ts): a monotonic clock and a repeating
// timer, injected so that tests drive every deadline with a fake clock instead of waiting for them.

/** Stops what it was returned for (a second call is harmless). */
export type Cancel = () => void;

export interface Clock {
  /** Milliseconds on a monotonic clock (performance.now() for the real one). */
  now(): number;
  /** Calls `fn` every `ms` until cancelled. */
  every(ms: number, fn: () => void): Cancel;
}

/** performance.now() and setInterval; the interval does not keep the process alive on its own. */
export const realClock: Clock = {
  now: () => performance.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref?.();
    return () => clearInterval(timer);
  },
};
