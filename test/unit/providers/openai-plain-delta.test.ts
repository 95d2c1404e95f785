// The unparsed reading of plain content chunks (openai-compatible/plain-delta.ts) must read exactly what
// JSON.parse would, and leave every other chunk to the full reading.
import { describe, expect, test } from "bun:test";
import { PlainDeltaReader } from "../../../src/providers/openai-compatible/plain-delta";
import { openAIStreamTransformer } from "../../../src/providers/openai-compatible/stream";
import type { DeltaEvent, StreamEvent } from "../../../src/providers/types";
import { SyncTransform } from "../../../src/inference/sync-transform";
import { fixtureChunks } from "../../support/mock-upstream-wire";
import { runStream, target } from "./stream-harness";

const HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m-1","system_fingerprint":"fp_1",';
const choice = (body: string) => `"choices":[{"index":0,"delta":{"content":${body}},"logprobs":null,"finish_reason":null}]`;
const chunk = (content: string, tail = "}") => `${HEAD}${choice(JSON.stringify(content))}${tail}`;

/** The full reading: a fresh transformer has no earlier chunk, so it parses. */
function fullReading(data: string): StreamEvent[] {
  return [...new SyncTransform(openAIStreamTransformer(target("openai"))).push({ data, event: undefined, id: undefined })];
}

const prev = fullReading(chunk("first"))[0] as DeltaEvent;
/** A chunk read alone: a reader that has not seen the stream's envelope yet. */
const plainContentDelta = (data: string, p: DeltaEvent) => new PlainDeltaReader().read(data, p);
/** A reader that has read one clean chunk of HEAD's envelope: later chunks take the remembered-envelope path. */
function primed(): PlainDeltaReader {
  const reader = new PlainDeltaReader();
  expect(reader.read(chunk("primer"), prev)).not.toBeNull();
  return reader;
}

const PLAIN = [
  chunk(" word"),
  chunk(""),
  chunk("! Grüße 👋 — how"),
  chunk("x", ',"usage":null}'),
  chunk("y", ',"usage":null,"obfuscation":"ab"}'),
];
const OTHERS = [
  chunk("line\nbreak"), // an escape: JSON.parse decodes it
  chunk('say "hi"'),
  `${HEAD}${choice('"caf\\u00e9"')}}`,
  `${HEAD}${choice('"raw\tcontrol"')}}`, // invalid JSON: the full reading reports it
  chunk("x", ',"usage":{"prompt_tokens":1,"completion_tokens":1}}'),
  chunk("x", ',"usage":null,"usage":{"prompt_tokens":1}}'),
  chunk("x", ',"error":{"message":"boom"}}'),
  chunk("x", ',"x_groq":{"usage":{"prompt_tokens":1}}}'),
  chunk("x", ',"choices":[]}'), // JSON.parse keeps the last duplicate key
  `${HEAD}"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null},{"index":1,"delta":{"content":"b"},"logprobs":null,"finish_reason":null}]}`,
  `${HEAD}"choices":[{"index":1,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
  `${HEAD}"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[]},"finish_reason":null}]}`,
  `${HEAD}"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":"stop"}]}`,
  `${HEAD}"choices":[{"index":0,"delta":{"content":"a","refusal":null},"logprobs":null,"finish_reason":null}]}`,
  `${HEAD}"choices":[{"index":0,"delta":{"role":"assistant","content":"a"},"logprobs":null,"finish_reason":null}]}`,
  `{"id": "a", "choices": [{"index": 0, "delta": {"content": "a"}, "logprobs": null, "finish_reason": null}]}`,
  `${chunk("a")} `,
];

describe("plain content deltas read without JSON.parse", () => {
  test("a plain chunk becomes the delta event JSON.parse would make, with its delta as the chat wire's JSON text", () => {
    for (const data of PLAIN) {
      for (const fast of [plainContentDelta(data, prev), primed().read(data, prev)]) {
        expect(fast).not.toBeNull();
        const { deltaJson, ...event } = fast!;
        expect(event).toEqual(fullReading(data)[0] as DeltaEvent);
        expect(deltaJson).toBe(JSON.stringify(event.delta));
      }
    }
  });

  test("chunks the full reading must see are left to it", () => {
    for (const data of OTHERS) expect(plainContentDelta(data, prev)).toBeNull();
  });

  test("a reader that remembers the stream's envelope answers every chunk as a fresh reader does", () => {
    for (const data of [...PLAIN, ...OTHERS]) expect(primed().read(data, prev)).toEqual(plainContentDelta(data, prev));
    // After the envelope: keys the full reading must see, and a usage that is not null or comes twice.
    for (const tail of [
      ',"error":{"message":"boom"}}',
      ',"x_groq":{}}',
      ',"choices":[]}',
      ',"usage":{"prompt_tokens":1}}',
      ',"usage":null,"usage":null}',
    ]) {
      expect(primed().read(chunk("x", tail), prev)).toBeNull();
    }
    // Another envelope (a new id) is read in full, then remembered in its turn.
    const reader = primed();
    const other = chunk("z").replace("chatcmpl-1", "chatcmpl-2");
    expect(reader.read(other, prev)?.delta).toEqual({ content: "z" });
    expect(reader.read(other.replace('"z"', '"w"'), prev)?.delta).toEqual({ content: "w" });
  });

  test("a recorded OpenAI stream reads the same with and without the unparsed path", async () => {
    const lines = fixtureChunks("openai/text.chunks.txt").filter((l) => l !== "[DONE]");
    const events = await runStream("openai", [...lines.map((l) => `data: ${l}\n\n`), "data: [DONE]\n\n"]);
    // The four content chunks after the role chunk went the unparsed way; role, finish and usage did not.
    expect(events.filter((e) => e.type === "delta" && e.deltaJson !== undefined).map((e) => e.type === "delta" && e.delta.content)).toEqual(
      ["Hello", "! Grüße", " 👋 — how", " can I help?"],
    );
    const eachAlone = lines.flatMap((l) => fullReading(l).filter((e) => e.type === "delta"));
    expect(events.filter((e) => e.type === "delta").map(({ deltaJson: _, ...e }: DeltaEvent) => e)).toEqual(eachAlone as DeltaEvent[]);
  });
});
