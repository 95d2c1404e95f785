// The pass-through of plain content chunks (providers/types.ts PlainChoiceReader, read in
// openai-compatible/plain-delta.ts): an event's bytes may go to the client as they came only when the
// full path would have written exactly those bytes between the chat wire's head and tail.
import { describe, expect, test } from "bun:test";
import { PlainDeltaReader, plainUtf8End } from "../../../src/providers/openai-compatible/plain-delta";
import { openAIStreamTransformer } from "../../../src/providers/openai-compatible/stream";
import { chatSseTransformer } from "../../../src/inference/chat/render";
import type { DeltaEvent } from "../../../src/providers/types";
import { SyncTransform } from "../../../src/inference/sync-transform";
import { target } from "./stream-harness";

const utf8 = new TextEncoder();
const HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m-1","system_fingerprint":"fp_1",';
const choice = (body: string) => `"choices":[{"index":0,"delta":{"content":${body}},"logprobs":null,"finish_reason":null}]`;
const chunk = (content: string, tail = "}") => `${HEAD}${choice(JSON.stringify(content))}${tail}`;
const event = (data: string) => utf8.encode(`data: ${data}`);

/** A transformer that has read a first chunk in full and a second by the string reading (so it knows the envelope). */
function primedTransformer() {
  const t = openAIStreamTransformer(target("openai"));
  const run = new SyncTransform(t);
  run.push({ data: chunk("first"), event: undefined, id: undefined });
  run.push({ data: chunk("second"), event: undefined, id: undefined });
  return { t, run };
}

/** What the full path writes for `data` (after the first two chunks): the chat wire's text for its events. */
function fullPathText(data: string): { text: string; frame: { head: Uint8Array; tail: Uint8Array } } {
  const { run } = primedTransformer();
  const wire = chatSseTransformer();
  const enc = new SyncTransform(wire);
  enc.push(run.push({ data: chunk("second"), event: undefined, id: undefined })[0] as DeltaEvent);
  const text = run
    .push({ data, event: undefined, id: undefined })
    .flatMap((e) => [...enc.push(e as DeltaEvent)])
    .join("");
  return { text, frame: wire.plainFrame()! };
}

const concat = (...parts: Uint8Array[]) => Buffer.concat(parts);

const PASSED = [
  chunk(" word"),
  chunk(""),
  chunk("! Grüße 👋 — how"),
  chunk("x", ',"usage":null}'),
  chunk("\u2028 \u007f \uffff 𝄞"),
  chunk("y", ',"usage":null,"obfuscation":"ab"}'), // OpenAI's padding: neither path writes it
  chunk("y", ',"obfuscation":"x\\"y","service_tier":"default"}'),
];
const LEFT = [
  chunk("x", ',"usage":null,"usage":null}'),
  chunk("x", ',"obfuscation":"error"}'), // a key's text anywhere after the choice: the string reading refuses too
  chunk("x", ',"x_groq":{}}'),
  chunk("x", ',"choices":[]}'),
  chunk("x", ',"usage":null'),
  chunk("line\nbreak"),
  chunk('say "hi"'),
  `${HEAD}${choice('"raw\tcontrol"')}}`,
  chunk("x", ',"usage":{"prompt_tokens":1}}'),
  chunk("x", ',"error":{"message":"boom"}}'),
  `${HEAD}"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":"stop"}]}`,
  `${HEAD}"choices":[{"index":1,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
  chunk("z").replace("chatcmpl-1", "chatcmpl-2"), // another envelope
  `${chunk("a")} `,
  "[DONE]",
];

describe("plain choices read from an event's bytes", () => {
  test("a plain chunk's choice bytes, framed by the chat wire, are exactly what the full path writes", () => {
    for (const data of PASSED) {
      const { t } = primedTransformer();
      const bytes = event(data);
      const from = t.plainChoice(bytes, 0, bytes.length);
      expect(from).toBeGreaterThan(0);
      const { text, frame } = fullPathText(data);
      expect(new TextDecoder().decode(concat(frame.head, bytes.slice(from, t.choiceEnd), frame.tail))).toBe(text);
    }
  });

  test("chunks the full path writes differently, or must read, are left to it", () => {
    for (const data of LEFT) {
      const { t } = primedTransformer();
      const bytes = event(data);
      expect(t.plainChoice(bytes, 0, bytes.length)).toBe(-1);
    }
    // Before the envelope is known, and after the stream failed or sent its usage, nothing passes.
    const fresh = openAIStreamTransformer(target("openai"));
    expect(fresh.plainChoice(event(chunk("a")), 0, event(chunk("a")).length)).toBe(-1);
    const { t, run } = primedTransformer();
    run.push({ data: "[DONE]", event: undefined, id: undefined });
    expect(t.plainChoice(event(chunk("a")), 0, event(chunk("a")).length)).toBe(-1);
  });

  test("the bytes pass exactly the chunks of the stream's envelope that the string reading takes as plain", () => {
    const prev = { type: "delta", id: "chatcmpl-1", created: 7, model: "m-1", choiceIndex: 0, delta: {}, finishReason: null } as DeltaEvent;
    const primed = () => {
      const r = new PlainDeltaReader();
      expect(r.read(chunk("learn"), prev)).not.toBeNull();
      return r;
    };
    for (const data of [...PASSED, ...LEFT]) {
      const viaText = primed().read(data, prev) !== null;
      const bytes = event(data);
      const viaBytes = primed().plainChoice(bytes, 0, bytes.length) >= 0;
      // Never more than the text reading; and all of it for chunks in the envelope the reader knows.
      expect({ data, viaBytes }).toEqual({ data, viaBytes: viaText && data.startsWith(HEAD) });
    }
  });

  test("the stream's first chunk, read in full, shows the envelope only when it passes the string reading's checks", () => {
    const roleChunk = (tail: string) =>
      `${HEAD}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${tail}`;
    /** Whether a plain chunk passes right after `first`, with no chunk read by the string reading between. */
    const passesAfter = (first: string) => {
      const t = openAIStreamTransformer(target("openai"));
      new SyncTransform(t).push({ data: first, event: undefined, id: undefined });
      const bytes = event(chunk("a"));
      return t.plainChoice(bytes, 0, bytes.length) >= 0;
    };
    expect(passesAfter(roleChunk("}"))).toBe(true);
    expect(passesAfter(roleChunk(',"usage":null,"obfuscation":"x1"}'))).toBe(true);
    // Keys the full reading acts on, or a second choices key, leave the envelope unknown.
    expect(passesAfter(roleChunk(',"x_groq":{"id":"q"}}'))).toBe(false);
    expect(passesAfter(roleChunk(',"error":null}'))).toBe(false);
    expect(passesAfter(roleChunk(',"choices":[]}'))).toBe(false);
    expect(passesAfter(roleChunk(',"usage":{"prompt_tokens":1}}'))).toBe(false);
  });

  test("an event is read where it lies in a larger read, and not past its end", () => {
    const reader = new PlainDeltaReader();
    const prev = { type: "delta", id: "chatcmpl-1", created: 7, model: "m-1", choiceIndex: 0, delta: {}, finishReason: null } as DeltaEvent;
    expect(reader.read(chunk("learn"), prev)).not.toBeNull();
    const one = event(chunk("abc"));
    const read = concat(utf8.encode("xx"), one, utf8.encode("\n\n"));
    const from = reader.plainChoice(read, 2, 2 + one.length);
    expect(new TextDecoder().decode(read.slice(from, reader.choiceEnd))).toBe(
      '{"index":0,"delta":{"content":"abc"},"logprobs":null,"finish_reason":null}',
    );
    expect(reader.plainChoice(read, 2, 2 + one.length - 1)).toBe(-1);
  });

  test("content passes only as valid UTF-8 without escapes or control characters: what decoding and re-encoding keep as it is", () => {
    const ok = (bytes: number[]) => plainUtf8End(Uint8Array.from([...bytes, 34]), 0, bytes.length + 1) === bytes.length;
    for (const s of ["", "abc", "Grüße", "€", "👋", "\u0800", "\uffff", "\u{10000}", "\u{10ffff}", "\u007f"])
      expect(ok([...utf8.encode(s)])).toBe(true);
    for (const bad of [
      [0x5c], // backslash
      [0x0a],
      [0x1f],
      [0x80], // a continuation byte alone
      [0xc0, 0xaf], // overlong
      [0xc1, 0xbf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80], // a surrogate
      [0xf0, 0x80, 0x80, 0xaf],
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xf5, 0x80, 0x80, 0x80],
      [0xff],
      [0xe2, 0x82], // cut short (then the quote)
      [0xc3],
    ]) {
      expect(ok(bad)).toBe(false);
    }
    // No closing quote within the range.
    expect(plainUtf8End(utf8.encode("abc"), 0, 3)).toBe(-1);
    // Random bytes: whenever content passes, TextDecoder and TextEncoder give back the same bytes.
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) & 0xff;
    let passed = 0;
    for (let n = 0; n < 20_000; n++) {
      const len = 1 + (next() % 6);
      const bytes = Array.from({ length: len }, () => (next() < 128 ? 0x61 : 0x80 + (next() % 0x80)));
      if (!ok(bytes)) continue;
      passed++;
      expect([...utf8.encode(new TextDecoder().decode(Uint8Array.from(bytes)))]).toEqual(bytes);
    }
    expect(passed).toBeGreaterThan(1_000);
  });
});
