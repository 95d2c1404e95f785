// A Clock (src/platform/clock.ts) whose time moves only when a test advances it: each interval due
// on the way runs at its own time, in order, so deadlines are tested without waiting for them.
import type { Cancel, Clock } from "../../src/platform/clock";

interface Timer {
  every: number;
  next: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private t = 1_000;
  private readonly timers: Timer[] = [];

  now(): number {
    return this.t;
  }

  every(ms: number, fn: () => void): Cancel {
    const timer = { every: ms, next: this.t + ms, fn };
    this.timers.push(timer);
    return () => {
      const i = this.timers.indexOf(timer);
      if (i >= 0) this.timers.splice(i, 1);
    };
  }

  /** Intervals not cancelled. */
  running(): number {
    return this.timers.length;
  }

  /** Periods of the intervals not cancelled. */
  periods(): number[] {
    return this.timers.map((t) => t.every);
  }

  /** Moves time on by `ms`, running each interval tick due on the way at its time. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let due: Timer | null = null;
      for (const timer of this.timers) if (timer.next <= end && (due === null || timer.next < due.next)) due = timer;
      if (due === null) break;
      this.t = due.next;
      due.next += due.every;
      due.fn();
    }
    this.t = end;
  }
}
