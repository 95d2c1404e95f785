// Reading an UpstreamAnswer as the gateway does (a tap, piece by piece), with deadlines instead of hopes.
import type { UpstreamAnswer } from "../../../src/platform/upstream-answer";

export interface Tapped {
  /** The body's text so far. */
  text(): string;
  /** Resolves when the body so far contains `needle`; rejects after `ms`. */
  seen(needle: string, ms?: number): Promise<void>;
  /** Resolves with the whole text at the body's end; rejects on its failure or after `ms`. */
  ended(ms?: number): Promise<string>;
}

export function tapText(answer: UpstreamAnswer): Tapped {
  const decoder = new TextDecoder();
  let text = "";
  let over: { error?: unknown } | null = null;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  answer.tap({
    piece: (b, start, end) => {
      text += decoder.decode(b.subarray(start, end), { stream: true });
      wake();
    },
    end: () => {
      over = {};
      wake();
    },
    error: (error) => {
      over = { error };
      wake();
    },
  });
  const until = (done: () => boolean, what: string, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (over && "error" in over && over.error !== undefined) return finish(() => reject(over!.error));
        if (done()) return finish(resolve);
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`${what} not within ${ms} ms; body so far: ${text}`))), ms);
      const finish = (f: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        f();
      };
      waiters.add(check);
      check();
    });
  return {
    text: () => text,
    seen: (needle, ms = 5_000) => until(() => text.includes(needle), JSON.stringify(needle), ms),
    ended: (ms = 5_000) => until(() => over !== null, "the body's end", ms).then(() => text),
  };
}
