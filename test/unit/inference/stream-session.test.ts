// The stream session (src/inference/stream-session.ts) driven by a fake clock: every transition, every
// deadline, the keep-alives and the client's departure in each state, and a single settlement.
import { describe, expect, test } from "bun:test";
import { StreamSession, type Expiry, type SessionLimits } from "../../../src/inference/stream-session";
import { FakeClock } from "../../support/fake-clock";

const LIMITS: SessionLimits = { connectMs: 1_000, firstByteMs: 3_000, idleMs: 2_000, totalMs: 10_000, drainMs: 500 };
const KEEP_ALIVE = 400;

function setup(limits: Partial<SessionLimits> = {}) {
  const clock = new FakeClock();
  const aborted: string[] = [];
  const interrupted: (Expiry | "cancelled")[] = [];
  const client = { left: 0, pings: [] as number[] };
  const session = new StreamSession({ ...LIMITS, ...limits }, { abort: (r) => aborted.push((r as DOMException).name) }, clock);
  const ac = new AbortController();
  session.watch(ac);
  const upstream = { interrupt: (why: Expiry | "cancelled") => void interrupted.push(why) };
  const sessionClient = {
    left: () => void client.left++,
    ping: () => void client.pings.push(clock.now() - session.t0),
  };
  /** Headers, first content, the client's side served and writing, as a committed stream does it. */
  const commit = () => {
    session.headers(upstream);
    session.commit();
    session.serve(sessionClient, KEEP_ALIVE);
    session.writing();
  };
  return { clock, session, aborted, interrupted, client, ac, upstream, sessionClient, commit };
}

describe("transitions", () => {
  test("connecting → awaiting_first → committed → settled, settled once, and nothing runs or listens after it", () => {
    const s = setup();
    expect(s.session.state).toBe("connecting");
    s.session.headers(s.upstream);
    expect(s.session.state).toBe("awaiting_first");
    s.session.commit();
    expect(s.session.state).toBe("committed");
    s.session.serve(s.sessionClient, KEEP_ALIVE);
    s.session.writing();
    expect(s.session.settle()).toBe(true);
    expect(s.session.state).toBe("settled");
    expect(s.session.settle()).toBe(false);
    expect(s.clock.running()).toBe(0);
    s.ac.abort();
    s.clock.advance(60_000);
    expect(s.session.clientGone).toBe(false);
    expect(s.client).toEqual({ left: 0, pings: [] });
    expect(s.interrupted).toEqual([]);
  });

  test("out-of-order calls change nothing: commit before headers, headers twice", () => {
    const s = setup();
    s.session.commit();
    expect(s.session.state).toBe("connecting");
    s.session.headers(s.upstream);
    s.session.headers(s.upstream);
    expect(s.session.state).toBe("awaiting_first");
  });

  test("one interval at most for the whole attempt, re-made finer only when a much shorter limit comes (the drain bound)", () => {
    const s = setup({ drainMs: 300 });
    expect(s.clock.periods()).toEqual([100]);
    s.commit();
    // Keep-alive 400 ms, idle 2 s: a tenth of the keep-alive is 40 ms, less than half of 100 ms.
    expect(s.clock.periods()).toEqual([40]);
    s.session.waiting(true);
    expect(s.clock.running()).toBe(1);
    s.ac.abort();
    // The drain bound's tenth (30 ms) is not much finer than 40 ms: the interval is kept.
    expect(s.clock.periods()).toEqual([40]);
    s.session.settle();
    expect(s.clock.running()).toBe(0);
  });
});

describe("deadlines", () => {
  test("connect: no headers within the connect limit aborts the request with a TimeoutError, once", () => {
    const s = setup();
    s.clock.advance(900);
    expect(s.aborted).toEqual([]);
    s.clock.advance(200);
    expect(s.aborted).toEqual(["TimeoutError"]);
    expect(s.clock.running()).toBe(0);
    s.clock.advance(10_000);
    expect(s.aborted).toEqual(["TimeoutError"]);
  });

  test("first content: counted from the send, not from the headers; passing it interrupts the upstream as first_byte", () => {
    const s = setup();
    s.clock.advance(800);
    s.session.headers(s.upstream);
    s.clock.advance(2_000); // 2.8 s after the send
    expect(s.interrupted).toEqual([]);
    s.clock.advance(400); // 3.2 s
    expect(s.interrupted).toEqual(["first_byte"]);
    expect(s.aborted).toEqual([]);
  });

  test("no idle limit between the commit and the client side's first wait (a body not pulled yet)", () => {
    const s = setup();
    s.session.headers(s.upstream);
    s.session.commit();
    s.clock.advance(5_000);
    expect(s.interrupted).toEqual([]);
    s.session.serve(s.sessionClient, KEEP_ALIVE);
    s.session.writing();
    s.session.waiting(true);
    s.clock.advance(2_100);
    expect(s.interrupted).toEqual(["idle"]);
  });

  test("idle mid-stream: reads within the idle limit keep the stream alive; a silence past it interrupts it as idle", () => {
    const s = setup();
    s.commit();
    for (let i = 0; i < 4; i++) {
      s.clock.advance(1_500);
      s.session.waiting(i % 2 === 0);
    }
    expect(s.interrupted).toEqual([]);
    s.clock.advance(1_900);
    expect(s.interrupted).toEqual([]);
    s.clock.advance(200);
    expect(s.interrupted).toEqual(["idle"]);
    expect(s.clock.running()).toBe(0);
  });

  test("total: a lively stream past the total limit is interrupted as total, however often it reads", () => {
    const s = setup();
    s.commit();
    let at = 0;
    while (s.interrupted.length === 0 && at < 20_000) {
      s.clock.advance(250);
      at += 250;
      s.session.waiting(true);
    }
    expect(s.interrupted).toEqual(["total"]);
    expect(s.session.now() - s.session.t0).toBeGreaterThanOrEqual(10_000);
    expect(s.session.now() - s.session.t0).toBeLessThan(11_000);
  });

  test("total: when its rest is shorter than the idle limit, a silence ends the stream at the total limit, not the idle one", () => {
    const s = setup({ totalMs: 3_000 });
    s.commit();
    s.clock.advance(2_000);
    s.session.waiting(true);
    s.clock.advance(1_100); // 3.1 s after the send, 1.1 s of silence: within the idle limit
    expect(s.interrupted).toEqual(["total"]);
  });
});

describe("keep-alives", () => {
  test("written only after a silence of the keep-alive interval, again after each further one, never while writes come", () => {
    const s = setup({ idleMs: 60_000 });
    s.commit();
    for (let i = 0; i < 10; i++) {
      s.clock.advance(300);
      s.session.waiting(true);
    }
    expect(s.client.pings).toEqual([]);
    s.clock.advance(1_000);
    expect(s.client.pings.length).toBe(2);
    // Each at least a keep-alive interval after the last write or ping.
    const lastWrite = 3_000;
    expect(s.client.pings[0]! - lastWrite).toBeGreaterThanOrEqual(KEEP_ALIVE);
    expect(s.client.pings[1]! - s.client.pings[0]!).toBeGreaterThanOrEqual(KEEP_ALIVE);
  });

  test("reads that write nothing (usage, held events, comments) are silence to the client: pings go on", () => {
    const s = setup({ idleMs: 60_000 });
    s.commit();
    for (let i = 0; i < 10; i++) {
      s.clock.advance(100);
      s.session.waiting(false);
    }
    expect(s.client.pings.length).toBe(2);
  });

  test("none before the client side's first write, none once the client left, none after settling", () => {
    const s = setup({ idleMs: 60_000, drainMs: 60_000 });
    s.session.headers(s.upstream);
    s.session.commit();
    s.session.serve(s.sessionClient, KEEP_ALIVE);
    s.clock.advance(2_000);
    expect(s.client.pings).toEqual([]);
    s.session.writing();
    s.clock.advance(500);
    expect(s.client.pings.length).toBe(1);
    s.ac.abort();
    s.clock.advance(2_000);
    expect(s.client.pings.length).toBe(1);
    const t = setup({ idleMs: 60_000 });
    t.commit();
    t.session.settle();
    t.clock.advance(2_000);
    expect(t.client.pings).toEqual([]);
  });
});

describe("the client leaves", () => {
  test("while connecting: the request is aborted (AbortError) at once and the attempt is cancelled; no deadline fires later", () => {
    const s = setup();
    s.ac.abort();
    expect(s.aborted).toEqual(["AbortError"]);
    expect(s.session.clientGone).toBe(true);
    s.clock.advance(10_000);
    expect(s.aborted).toEqual(["AbortError"]);
    expect(s.clock.running()).toBe(0);
    expect(s.session.settle()).toBe(true);
  });

  test("while connecting, with the answer's headers racing the abort: the answer's events are cancelled as they come", () => {
    const s = setup();
    s.ac.abort();
    s.session.headers(s.upstream);
    expect(s.interrupted).toEqual(["cancelled"]);
  });

  test("a client already gone when watched is handled at once", () => {
    const clock = new FakeClock();
    const aborted: string[] = [];
    const session = new StreamSession(LIMITS, { abort: (r) => aborted.push((r as DOMException).name) }, clock);
    const ac = new AbortController();
    ac.abort();
    session.watch(ac);
    expect(session.clientGone).toBe(true);
    expect(aborted).toEqual(["AbortError"]);
  });

  test("while the first content is awaited: the upstream is cancelled, not the request (its events stand for it)", () => {
    const s = setup();
    s.session.headers(s.upstream);
    s.ac.abort();
    expect(s.interrupted).toEqual(["cancelled"]);
    expect(s.aborted).toEqual([]);
    expect(s.session.clientGone).toBe(true);
  });

  test("once committed: the client side is told (it stops writing), the upstream is read on, and stopped at the drain bound", () => {
    const s = setup();
    s.commit();
    s.session.waiting(true);
    s.clock.advance(100);
    s.session.clientLeft(); // the body's cancel, or a refused write
    expect(s.client.left).toBe(1);
    expect(s.interrupted).toEqual([]);
    // Reads go on after the client left: the bound holds however lively the upstream is.
    s.clock.advance(200);
    s.session.waiting(false);
    s.clock.advance(200);
    s.session.waiting(false);
    expect(s.interrupted).toEqual([]);
    s.clock.advance(200);
    expect(s.interrupted).toEqual(["drain"]);
    s.ac.abort();
    s.session.clientLeft();
    expect(s.client.left).toBe(1);
  });

  test("once committed: the usage arriving within the drain bound settles the attempt and nothing fires after", () => {
    const s = setup();
    s.commit();
    s.ac.abort();
    s.clock.advance(100);
    expect(s.session.settle()).toBe(true);
    s.clock.advance(10_000);
    expect(s.interrupted).toEqual([]);
  });

  test("committed but the client side not yet served: it is told when it is served", async () => {
    const s = setup();
    s.session.headers(s.upstream);
    s.session.commit();
    s.ac.abort();
    s.session.serve(s.sessionClient, KEEP_ALIVE);
    expect(s.client.left).toBe(0);
    await Promise.resolve();
    expect(s.client.left).toBe(1);
  });

  test("the drain bound is the client's departure plus drainMs, even with most of the idle limit left", () => {
    const s = setup({ drainMs: 300, idleMs: 60_000 });
    s.commit();
    s.session.waiting(true);
    s.ac.abort();
    s.clock.advance(250);
    expect(s.interrupted).toEqual([]);
    s.clock.advance(100);
    expect(s.interrupted).toEqual(["drain"]);
  });
});

describe("settled exactly once under races", () => {
  test("the end and the client's departure in the same tick, either order", () => {
    const a = setup();
    a.commit();
    expect(a.session.settle()).toBe(true); // the end
    a.ac.abort();
    expect(a.session.clientGone).toBe(false);
    expect(a.client.left).toBe(0);
    expect(a.session.settle()).toBe(false);

    const b = setup();
    b.commit();
    b.ac.abort();
    b.session.clientLeft(); // the body's cancel right after the signal
    expect(b.client.left).toBe(1);
    expect(b.session.settle()).toBe(true); // the end the drain then reads
    expect(b.session.settle()).toBe(false);
    b.clock.advance(10_000);
    expect(b.interrupted).toEqual([]);
  });

  test("a deadline and the end in the same tick: the interrupted reader settling and the end's settle count once", () => {
    const s = setup();
    let settledBy = 0;
    // The upstream's reader settles when interrupted, as the committed stream's drain does.
    s.session.headers({ interrupt: () => void (s.session.settle() && settledBy++) });
    s.session.commit();
    s.session.serve(s.sessionClient, KEEP_ALIVE);
    s.session.writing();
    s.session.waiting(true);
    s.clock.advance(2_100);
    if (s.session.settle()) settledBy++;
    expect(settledBy).toBe(1);
    expect(s.session.state).toBe("settled");
  });

  test("a departure after a passed deadline but before the reader settled still counts once", () => {
    const s = setup();
    s.commit();
    s.session.waiting(true);
    s.clock.advance(2_100);
    expect(s.interrupted).toEqual(["idle"]);
    s.ac.abort();
    expect(s.client.left).toBe(1);
    expect(s.session.settle()).toBe(true);
    expect(s.session.settle()).toBe(false);
    expect(s.clock.running()).toBe(0);
  });
});
