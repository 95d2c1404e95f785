// A recorded stream cut into two pieces at every byte offset must translate to the same events as
// the whole body: TCP may split anywhere, including inside a UTF-8 character or a CRLF.
import { describe, expect, test } from "bun:test";
import type { AdapterName } from "../../../src/catalog/types";
import { fixtureSseEvents } from "../../support/mock-upstream-wire";
import { runStream, runStreamPiped, target, withoutClock } from "./stream-harness";

const RECORDINGS: [AdapterName, string][] = [
  ["openai", "openai/text.chunks.txt"],
  ["openai", "openai/tool-calls.chunks.txt"],
  ["anthropic", "anthropic/text.chunks.txt"],
  ["anthropic", "anthropic/tool-use.chunks.txt"],
  ["anthropic", "anthropic/stream-error.chunks.txt"],
  ["gemini", "gemini/text.chunks.txt"],
  ["gemini", "gemini/function-call.chunks.txt"],
];

describe("stream translation is independent of byte boundaries", () => {
  for (const [adapter, file] of RECORDINGS) {
    test(`${file}: every two-piece split yields the events of the whole body`, async () => {
      const t = target(adapter);
      const bytes = new TextEncoder().encode(fixtureSseEvents(adapter, file).join(""));
      const whole = withoutClock(await runStream(adapter, [bytes], t));
      expect(whole.length).toBeGreaterThan(2);
      for (let cut = 1; cut < bytes.length; cut++) {
        const split = withoutClock(await runStream(adapter, [bytes.slice(0, cut), bytes.slice(cut)], t));
        if (!Bun.deepEquals(split, whole)) expect({ cut, split }).toEqual({ cut, split: whole });
      }
    });
  }
});

describe("the pipeline's one-pass reader and the TransformStream form agree", () => {
  for (const [adapter, file] of RECORDINGS) {
    test(`${file}: same events both ways`, async () => {
      const t = target(adapter);
      const bytes = new TextEncoder().encode(fixtureSseEvents(adapter, file).join(""));
      expect(withoutClock(await runStream(adapter, [bytes], t))).toEqual(withoutClock(await runStreamPiped(adapter, [bytes], t)));
    });
  }
});
