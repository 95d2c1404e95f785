// The SSE reader under the streaming path (inference/upstream-events.ts), with bodies delivered the way
// the socket client delivers them: by callback, sometimes all at once while the reader is being built.
import { describe, expect, test } from "bun:test";
import { UpstreamEvents } from "../../../src/inference/upstream-events";
import { adapterFor } from "../../../src/providers/registry";
import type { ProviderAdapter, UpstreamTarget } from "../../../src/providers/types";
import type { BodyTap, UpstreamAnswer } from "../../../src/platform/upstream-answer";
import { UpstreamAbort } from "../../../src/platform/upstream-abort";

const target = { providerId: "p", adapter: "openai", baseUrl: "http://x", apiKey: null, providerModelId: "m" } as UpstreamTarget;
const encoder = new TextEncoder();

/** An answer that hands its tap `pieces` (and the end, unless `open`) during the tap call itself; `tap` is kept for later pieces. */
function answer(pieces: string[], open = false): UpstreamAnswer & { taken: BodyTap | null } {
  const a = {
    taken: null as BodyTap | null,
    status: 200,
    ok: true,
    headers: new Headers(),
    text: () => Promise.resolve(pieces.join("")),
    tap(tap: BodyTap) {
      a.taken = tap;
      for (const bytes of pieces.map((p) => encoder.encode(p))) tap.piece(bytes, 0, bytes.length);
      if (!open) tap.end();
      return () => {};
    },
    response: () => new Response(pieces.join("")),
  };
  return a;
}

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

describe("UpstreamEvents", () => {
  test("a body delivered whole while the reader is built is read in order, then the end", async () => {
    const events = new UpstreamEvents(
      answer([chunk("a"), chunk("b"), "data: [DONE]\n\n"]),
      adapterFor("openai"),
      target,
      new UpstreamAbort(),
    );
    const seen: string[] = [];
    for (let e = await events.next(); e.type !== "end"; e = await events.next()) {
      if (e.type === "delta") seen.push(String(e.delta.content));
    }
    expect(seen).toEqual(["a", "b"]);
  });

  test("a translator that throws on a body delivered during construction makes the stream broken and stops the upstream, without throwing", async () => {
    const throwing = {
      streamTransformer: () => ({
        transform: () => {
          throw new Error("unexpected shape");
        },
      }),
    } as unknown as ProviderAdapter;
    const abort = new UpstreamAbort();
    const events = new UpstreamEvents(answer([chunk("a")]), throwing, target, abort);
    const e = await events.next();
    expect(e.type).toBe("broken");
    expect(abort.aborted).toBe(true);
  });

  test("cancelling wakes a first-token wait still pending: it ends as broken, and the upstream request is aborted", async () => {
    const abort = new UpstreamAbort();
    const events = new UpstreamEvents(answer([], true), adapterFor("openai"), target, abort);
    const waiting = events.next();
    events.cancel();
    expect((await waiting).type).toBe("broken");
    expect(abort.aborted).toBe(true);
  });

  test("a limit that passes (the session interrupts) wakes a first-token wait with a timeout saying which, after what is queued, and aborts the upstream request with a TimeoutError", async () => {
    const abort = new UpstreamAbort();
    const a = answer([], true);
    abort.onAbort((reason) => a.taken?.error(reason));
    const events = new UpstreamEvents(a, adapterFor("openai"), target, abort);
    const waiting = events.next();
    events.interrupt("first_byte");
    expect(await waiting).toEqual({ type: "timeout", which: "first_byte" });
    expect((abort.reason as DOMException).name).toBe("TimeoutError");
    const queued = new UpstreamEvents(answer([chunk("a")], true), adapterFor("openai"), target, new UpstreamAbort());
    queued.interrupt("idle");
    expect((await queued.next()).type).toBe("delta");
    expect(await queued.next()).toEqual({ type: "timeout", which: "idle" });
  });
});

/** A chunk as OpenAI writes a plain content delta (what the pass-through can take). */
const plainChunk = (content: string) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }] })}\n\n`;
const choiceOf = (content: string) => JSON.stringify({ index: 0, delta: { content }, logprobs: null, finish_reason: null });

/** A reader listening as the committed stream does, with a pass-through that records what it is handed. */
function passThroughReader(accept = true) {
  const a = answer([], true);
  const events = new UpstreamEvents(a, adapterFor("openai"), target, new UpstreamAbort());
  const passed: string[][] = [];
  const queued: string[] = [];
  events.listen(() => {
    for (let e = events.take(); e !== null && e.type === "delta"; e = events.take())
      queued.push(e.delta.content ?? `finish: ${e.finishReason}`);
  });
  expect(
    events.passThrough((bytes, ranges, count) => {
      if (!accept) return false;
      const read: string[] = [];
      for (let i = 0; i < 2 * count; i += 2) read.push(new TextDecoder().decode(bytes.slice(ranges[i], ranges[i + 1])));
      passed.push(read);
      return true;
    }),
  ).toBe(true);
  /** Each piece as one delivery (sendFramed: inside chunked framing, the piece being its range). */
  const send = (...pieces: string[]) => {
    for (const p of pieces) {
      const bytes = encoder.encode(p);
      a.taken!.piece(bytes, 0, bytes.length);
    }
  };
  const sendFramed = (...pieces: string[]) => {
    for (const p of pieces) {
      const size = `${encoder.encode(p).length.toString(16)}\r\n`;
      const bytes = encoder.encode(`${size}${p}\r\n`);
      a.taken!.piece(bytes, size.length, bytes.length - 2);
    }
  };
  return { events, passed, queued, send, sendFramed };
}

describe("UpstreamEvents pass-through of plain chunks", () => {
  test("once a chunk has shown the stream's envelope, reads of whole plain chunks go to the pass-through as their choices' bytes", () => {
    const r = passThroughReader();
    // The first chunk is parsed in full and shows the envelope; from the second on, plain chunks pass.
    r.send(plainChunk("first"), plainChunk("second"), plainChunk("a"), plainChunk("Grüße 👋") + plainChunk("b"));
    expect(r.queued).toEqual(["first"]);
    expect(r.passed).toEqual([[choiceOf("second")], [choiceOf("a")], [choiceOf("Grüße 👋"), choiceOf("b")]]);
  });

  test("OpenAI's chunks with obfuscation padding after the choice pass too (the padding is not written either way)", () => {
    const r = passThroughReader();
    const padded = (content: string, pad: string) => plainChunk(content).replace(/}\n\n$/, `,"usage":null,"obfuscation":"${pad}"}\n\n`);
    r.send(padded("first", "Qx"), padded("second", "p3Lr8"), padded("a", "Zq0Kf2mW"), padded("b", "k"));
    expect(r.queued).toEqual(["first"]);
    expect(r.passed).toEqual([[choiceOf("second")], [choiceOf("a")], [choiceOf("b")]]);
  });

  test("however the network cuts a stream, every content arrives once and in order, whichever path takes it", () => {
    const contents = ["first", "second", "a", "b c", 'say "hi"', "Grüße 👋", "line\nbreak", "d", "e", "f"];
    const text = contents.map(plainChunk).join("");
    const bytes = encoder.encode(text);
    const boundaries = contents
      .map(
        (_, i) =>
          encoder.encode(
            contents
              .slice(0, i + 1)
              .map(plainChunk)
              .join(""),
          ).length,
      )
      .slice(0, -1);
    let seed = 11;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    let passedSome = 0;
    for (let round = 0; round < 300; round++) {
      const order: string[] = [];
      const a = answer([], true);
      const events = new UpstreamEvents(a, adapterFor("openai"), target, new UpstreamAbort());
      events.listen(() => {
        for (let e = events.take(); e !== null && e.type === "delta"; e = events.take()) order.push(String(e.delta.content));
      });
      events.passThrough((b, ranges, count) => {
        for (let i = 0; i < 2 * count; i += 2)
          order.push(JSON.parse(new TextDecoder().decode(b.slice(ranges[i], ranges[i + 1]))).delta.content);
        passedSome += count;
        return true;
      });
      // Cut points anywhere (inside multi-byte characters too) or between events, each piece its own delivery.
      const cut = () => (next(4) === 0 ? 1 + next(bytes.length - 1) : boundaries[next(boundaries.length)]!);
      const cuts = [...new Set(Array.from({ length: 1 + next(16) }, cut))].sort((x, y) => x - y);
      let at = 0;
      for (const cut of [...cuts, bytes.length]) {
        const piece = bytes.slice(at, cut);
        a.taken!.piece(piece, 0, piece.length);
        at = cut;
      }
      expect(order).toEqual(contents);
    }
    expect(passedSome).toBeGreaterThan(100); // the pass-through took part
  });

  test("a piece handed over as its range of a larger delivery (chunked framing around it) is read within its range on both paths", () => {
    const r = passThroughReader();
    r.sendFramed(plainChunk("first"), plainChunk("second"), plainChunk("a"), plainChunk("b") + plainChunk("c"), plainChunk('q"uote'));
    expect(r.queued).toEqual(["first", 'q"uote']);
    expect(r.passed).toEqual([[choiceOf("second")], [choiceOf("a")], [choiceOf("b"), choiceOf("c")]]);
  });

  test("a read's plain chunks pass up to the first event that is not one, the rest takes the full path, and so does the read after one that ended inside an event", () => {
    const r = passThroughReader();
    const split = plainChunk("split");
    r.send(plainChunk("first"), plainChunk("second"), split.slice(0, 20), split.slice(20), plainChunk("after"));
    // A plain chunk, then the start of another event: the chunk passes, the start goes to the parser; the
    // next read starts inside that event (the parser holds its partial line: the full path), though it ends
    // between events.
    r.send(plainChunk("c") + "data: ", '{"choices":[]}\n\n' + plainChunk("d"), plainChunk("e"));
    // A read ending in an unfinished comment line: the next read, whole plain chunk as it looks, ends that
    // comment (SSE drops it), so it must not pass through; the read after it does.
    r.send(plainChunk("g") + ":", plainChunk("hidden"), plainChunk("h"));
    // A stream's last read: its last content, then the finish, usage and [DONE] events, which are parsed.
    r.send(
      plainChunk("last") + 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n' + plainChunk("z") + "data: [DONE]\n\n",
    );
    expect(r.queued).toEqual(["first", "split", "d", "finish: stop", "z"]);
    expect(r.passed).toEqual([
      [choiceOf("second")],
      [choiceOf("after")],
      [choiceOf("c")],
      [choiceOf("e")],
      [choiceOf("g")],
      [choiceOf("h")],
      [choiceOf("last")],
    ]);
  });

  test("a read of a plain chunk and then an event that would read as its tail is two events, not one plain chunk", () => {
    const r = passThroughReader();
    // Read as one line, `}\n\ndata: {…}` after the choice ends with `}` and holds none of the keys a tail may not.
    const keyless = 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m"}\n\n';
    r.send(plainChunk("first"), plainChunk("second"), plainChunk("a") + keyless, plainChunk("b") + plainChunk("c"), plainChunk("d"));
    expect(r.queued).toEqual(["first"]);
    expect(r.passed).toEqual([[choiceOf("second")], [choiceOf("a")], [choiceOf("b"), choiceOf("c")], [choiceOf("d")]]);
  });

  test("escapes, other layouts and a pass-through that cannot frame yet all leave the chunk to the full path, in order", () => {
    const r = passThroughReader(false);
    r.send(plainChunk("first"), plainChunk("x"), plainChunk('say "hi"'));
    expect(r.passed).toEqual([]);
    expect(r.queued).toEqual(["first", "x", 'say "hi"']);
    const s = passThroughReader();
    s.send(plainChunk("first"), plainChunk("second"), plainChunk("line\nbreak"), chunk("no logprobs"), plainChunk("ok"));
    expect(s.queued).toEqual(["first", "line\nbreak", "no logprobs"]);
    expect(s.passed).toEqual([[choiceOf("second")], [choiceOf("ok")]]);
  });
});
