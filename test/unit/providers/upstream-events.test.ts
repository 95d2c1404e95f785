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
      for (const p of pieces) tap.piece(encoder.encode(p));
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
    for (let e = await events.next(1_000); e.type !== "end"; e = await events.next(1_000)) {
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
    const e = await events.next(1_000);
    expect(e.type).toBe("broken");
    expect(abort.aborted).toBe(true);
  });

  test("cancelling wakes a first-token wait still pending: it ends as broken, and the upstream request is aborted", async () => {
    const abort = new UpstreamAbort();
    const events = new UpstreamEvents(answer([], true), adapterFor("openai"), target, abort);
    const waiting = events.next(10_000);
    events.cancel();
    expect((await waiting).type).toBe("broken");
    expect(abort.aborted).toBe(true);
  });

  test("no piece within the first-token limit aborts the upstream request with a TimeoutError and ends as a timeout", async () => {
    const abort = new UpstreamAbort();
    const a = answer([], true);
    abort.onAbort((reason) => a.taken?.error(reason));
    const events = new UpstreamEvents(a, adapterFor("openai"), target, abort);
    expect((await events.next(30)).type).toBe("timeout");
    expect((abort.reason as DOMException).name).toBe("TimeoutError");
  });
});
