// Most chunks of an OpenAI-compatible stream are a single choice's plain text, written compactly:
//   {"id":…,"choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]…}
// Such a chunk is read here without JSON.parse: its content is sliced out of the text, and its delta
// travels on as JSON text (`deltaJson`) that the chat wire writes unchanged, so no JSON.stringify either.
// Measured (micro-benchmark, translate + encode of one such chunk): 500–530 → 330–350 ns; ~4 µs of a
// 22-chunk stream, under the bench's noise but below the minimal JS proxy's per-event cost.
// Anything else — another layout, escapes in the content, several choices, usage, an error, Groq's
// x_groq — returns null and is parsed in full, so the content taken here is what JSON.parse would give.
// What lies outside the choice is not checked: a malformed id or model there is ignored, where a full
// parse would have failed the stream. The stream's id, created and model are those of its last fully
// parsed chunk (the chat wire takes them from the first chunk only).
//
// Every chunk of one stream repeats the same envelope before the choice (id, object, created, model,
// system_fingerprint), and scanning it for the keys below was most of this reading's cost: seven
// `indexOf` passes over the whole chunk, ~5,800 instructions per chunk (callgrind, bench/probes/
// instructions.ts; a pass over a 215-character chunk is ~850). So a reader remembers the envelope of a
// chunk that passed the checks, and a later chunk that starts with those same characters skips both the
// search for the choice and the envelope's checks: only what follows the choice is checked (and the
// usual tails, `}` and `,"usage":null}`, by comparison alone). The checks answer exactly as before: the
// envelope and the choice's head are the same characters that passed them, no key can begin inside the
// content (no quote) or the choice's tail, so a key can only be found after it. Measured: ~3,400
// instructions per chunk instead of ~5,800 in a loop; in the gateway at 8 streams the upstream socket's
// data callback fell from ~280–305k to ~224k instructions per stream (probe --functions); CPU side by
// side (bench/ab.ts --together) 0.97 at 8 streams (quartiles 0.96–1.03) and 0.97 at 32 (0.93–1.00,
// every new gateway below every old one).
//
// The same reading also works on an event's raw bytes (`plainChoice`, the pass-through of
// providers/types.ts PlainChoiceReader): once the envelope is known, an event whose bytes are `data: `,
// that envelope, the choice with plain content (no quote, backslash or control character; valid UTF-8,
// so decoding and re-encoding would give the same bytes) and a tail the string reading accepts
// (cleanTailBytes) is exactly the choice the string reading gives, so its bytes can go to the client as
// they are (what follows the choice is not written by the chat wire either way).
import type { DeltaEvent, PlainChoiceReader } from "../types";

const CHOICE_HEAD = '"choices":[{"index":0,"delta":{"content":"';
const CHOICE_TAIL = '"},"logprobs":null,"finish_reason":null}]';
/** `{"content":"` — where the delta's own JSON text starts within CHOICE_HEAD. */
const DELTA_START = CHOICE_HEAD.length - '{"content":"'.length;
/** A backslash (an escape JSON.parse would decode) or a control character (invalid JSON) in the content. */
const NOT_PLAIN = /[\\\x00-\x1f]/;
const USAGE_NULL_END = ',"usage":null}';
const CHOICES = '"choices"';

const utf8 = new TextEncoder();
const TAIL_BYTES = utf8.encode(CHOICE_TAIL);
const USAGE_NULL_END_BYTES = utf8.encode(USAGE_NULL_END);
const [CHOICES_KEY, ERROR_KEY, X_GROQ_KEY, USAGE_KEY, USAGE_NULL] = ['"choices"', '"error"', '"x_groq"', '"usage"', '"usage":null'].map(
  (k) => utf8.encode(k),
) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
const compare = Buffer.prototype.compare;

/** One stream's plain content deltas (one reader per stream: it remembers the stream's envelope). */
export class PlainDeltaReader implements PlainChoiceReader {
  /** The text before the choice of an earlier chunk that passed the checks, with none of the keys in it. */
  private envelope = "";
  /** `data: ` + envelope + CHOICE_HEAD as bytes (for plainChoice), and the envelope it was made from. */
  private prefix: Uint8Array | null = null;
  private prefixOf = "";
  private learnTried = false;
  choiceEnd = -1;

  /** See PlainChoiceReader: bytes[start, end) is one event's `data: ` line. */
  plainChoice(bytes: Uint8Array, start: number, end: number): number {
    if (this.envelope === "") return -1;
    if (this.prefixOf !== this.envelope) {
      this.prefix = utf8.encode(`data: ${this.envelope}${CHOICE_HEAD}`);
      this.prefixOf = this.envelope;
    }
    const prefix = this.prefix!;
    const from = start + prefix.length;
    if (end - start < prefix.length + TAIL_BYTES.length + 1) return -1;
    // ~190 bytes: a loop would cost as many instructions as the native call's checks, and run slower than its memcmp.
    if (compare.call(bytes, prefix, 0, prefix.length, start, from) !== 0) return -1;
    const quote = plainUtf8End(bytes, from, end);
    if (quote < 0 || !bytesAt(bytes, quote, end, TAIL_BYTES)) return -1;
    const rest = quote + TAIL_BYTES.length;
    if (!cleanTailBytes(bytes, rest, end)) return -1;
    // From `{"index":0` (the choice head after `"choices":[`) to the `}` before `]`.
    this.choiceEnd = rest - 1;
    return from - (CHOICE_HEAD.length - '"choices":['.length);
  }

  /** The chunk as a delta event like `prev`, when it is a plain content delta; otherwise null. */
  read(data: string, prev: DeltaEvent): DeltaEvent | null {
    if (data.charCodeAt(0) !== 123 /* { */ || data.charCodeAt(data.length - 1) !== 125 /* } */) return null;
    const known = this.envelope;
    const same = known !== "" && data.startsWith(known) && data.startsWith(CHOICE_HEAD, known.length);
    const at = same ? known.length : data.indexOf(CHOICE_HEAD);
    if (at < 0) return null;
    const from = at + CHOICE_HEAD.length;
    const to = data.indexOf('"', from);
    if (to < 0 || !data.startsWith(CHOICE_TAIL, to)) return null;
    const content = data.slice(from, to);
    if (NOT_PLAIN.test(content)) return null;
    if (same ? !cleanAfterChoice(data, to + CHOICE_TAIL.length) : !this.clean(data, at, to)) return null;
    return {
      type: "delta",
      id: prev.id,
      created: prev.created,
      model: prev.model,
      choiceIndex: 0,
      delta: { content },
      finishReason: null,
      deltaJson: data.slice(at + DELTA_START, to + 2),
    };
  }

  /**
   * The stream's first chunk, parsed in full (its delta carries the role, so it is not a plain one), shows
   * the envelope as well when it passes the same checks: the second chunk can then pass through instead of
   * waiting to show it (bench/NOTES.md). Tried once per stream, so a stream whose chunks are
   * never plain pays the checks once.
   */
  learn(data: string): void {
    if (this.learnTried) return;
    this.learnTried = true;
    const at = data.indexOf(CHOICES);
    if (this.envelope === "" && at > 0 && data.charCodeAt(0) === 123 /* { */) this.clean(data, at, at + CHOICES.length);
  }

  /** The whole chunk checked for the keys; a clean chunk's envelope is remembered. */
  private clean(data: string, at: number, to: number): boolean {
    // Keys the full reading acts on, or that would make this choice not the one JSON.parse keeps.
    if (data.indexOf(CHOICES) !== at || data.indexOf(CHOICES, to) >= 0) return false;
    if (data.indexOf('"error"') >= 0 || data.indexOf('"x_groq"') >= 0) return false;
    const usage = data.indexOf('"usage"');
    if (usage >= 0 && (!data.startsWith('"usage":null', usage) || data.indexOf('"usage"', usage + 1) >= 0)) return false;
    if (usage < 0 || usage > at) this.envelope = data.slice(0, at);
    return true;
  }
}

/** What follows the choice (from `end`) holds no key but one `"usage":null`; the usual tails by comparison. */
function cleanAfterChoice(data: string, end: number): boolean {
  const rest = data.length - end;
  if (rest === 1 || (rest === USAGE_NULL_END.length && data.startsWith(USAGE_NULL_END, end))) return true;
  if (data.indexOf('"choices"', end) >= 0 || data.indexOf('"error"', end) >= 0 || data.indexOf('"x_groq"', end) >= 0) return false;
  const usage = data.indexOf('"usage"', end);
  return usage < 0 || (data.startsWith('"usage":null', usage) && data.indexOf('"usage"', usage + 1) < 0);
}

/**
 * cleanAfterChoice on bytes: what follows the choice, bytes[rest, end), ends the object and holds no key
 * but one `"usage":null` (keys are ASCII, and no byte of a multi-byte character is, so a key is found in
 * the bytes exactly where it is in the text). OpenAI's `"obfuscation"` (random padding after the choice
 * since 2025) passes: the chat wire does not write it either way.
 */
function cleanTailBytes(bytes: Uint8Array, rest: number, end: number): boolean {
  const tail = end - rest;
  if (tail === 1) return bytes[rest] === 125; /* } */
  if (tail === USAGE_NULL_END_BYTES.length && bytesAt(bytes, rest, end, USAGE_NULL_END_BYTES)) return true;
  if (tail < 1 || bytes[end - 1] !== 125) return false;
  if (findBytes(bytes, rest, end, CHOICES_KEY) >= 0 || findBytes(bytes, rest, end, ERROR_KEY) >= 0) return false;
  if (findBytes(bytes, rest, end, X_GROQ_KEY) >= 0) return false;
  const usage = findBytes(bytes, rest, end, USAGE_KEY);
  return usage < 0 || (bytesAt(bytes, usage, end, USAGE_NULL) && findBytes(bytes, usage + 1, end, USAGE_KEY) < 0);
}

/** Where `pattern` first lies in bytes[from, end), or -1 (patterns here are short keys, the range a chunk's tail). */
function findBytes(bytes: Uint8Array, from: number, end: number, pattern: Uint8Array): number {
  const first = pattern[0]!;
  for (let i = from; i + pattern.length <= end; i++) if (bytes[i] === first && bytesAt(bytes, i, end, pattern)) return i;
  return -1;
}

/**
 * `expected` lies in bytes[at, end). A loop: for a few dozen bytes it is a fraction of the instructions
 * of a call to Buffer's native compare (~950 under callgrind, for its argument checks).
 */
function bytesAt(bytes: Uint8Array, at: number, end: number, expected: Uint8Array): boolean {
  if (at + expected.length > end) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/**
 * Where plain content ends: the offset of the first `"` in bytes[from, end), when everything before it
 * is valid UTF-8 with no backslash or control character (what NOT_PLAIN refuses, and what a decoder
 * would replace); -1 otherwise.
 */
export function plainUtf8End(bytes: Uint8Array, from: number, end: number): number {
  let i = from;
  while (i < end) {
    const b = bytes[i]!;
    if (b === 34 /* " */) return i;
    if (b < 0x80) {
      if (b < 0x20 || b === 92 /* \\ */) return -1;
      i++;
      continue;
    }
    // A multi-byte sequence: its length, and the range its second byte must lie in (no overlong forms,
    // no surrogates, nothing above U+10FFFF), then continuation bytes.
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) n = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return -1;
    if (i + n >= end) return -1;
    const second = bytes[i + 1]!;
    if (second < lo || second > hi) return -1;
    for (let k = 2; k <= n; k++) {
      const c = bytes[i + k]!;
      if (c < 0x80 || c > 0xbf) return -1;
    }
    i += n + 1;
  }
  return -1;
}
