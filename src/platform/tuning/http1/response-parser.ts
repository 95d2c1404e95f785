// An incremental HTTP/1.1 response parser (RFC 9112): bytes go in as the socket delivers them, split
// anywhere; the head, the body's pieces and its end come out through callbacks. Bodies are framed by
// Content-Length, by chunked transfer coding (extensions and trailers skipped), or by the connection's
// close. Interim 1xx heads are skipped. Malformed input throws Http1ParseError; the connection is then
// unusable.
//
// No view is ever taken of a delivered buffer (no subarray, no .buffer): Bun hands each socket read over
// as a small typed array held in the JS heap, and a view (or .buffer) makes JSC copy its bytes into a
// separately allocated ArrayBuffer first. Lines are read in place (chunk sizes and heads as bytes, the
// latter in response-head.ts), and a body piece is handed over as its range of the delivered array (no
// copy: the stream's pass-through reads it in place; whoever keeps it copies it). Measured (a 20-chunk
// SSE response, one delivery per chunk): 36 → 12 µs without views.

import { Http1ParseError, latin1, parseResponseHead } from "./response-head";
import { copyRange } from "../../bytes";

export { Http1ParseError };

export interface ResponseHead {
  status: number;
  statusText: string;
  /** Header pairs in arrival order, names lower-cased. */
  headers: [string, string][];
  /** True when the body ends with the connection (no length, not chunked). */
  untilClose: boolean;
  /** True when the connection can carry another request once this body ends. */
  keepAlive: boolean;
}

export interface ResponseSink {
  head(head: ResponseHead): void;
  /** Body bytes data[start, end) of one delivery (Bun never reuses a delivery's array; what is kept past the call is best sliced). */
  body(data: Uint8Array, start: number, end: number): void;
  /** The body is complete; `keepAlive` as in the head. */
  end(keepAlive: boolean): void;
}

/** Longest head or chunk-size line accepted: a server that never ends one cannot exhaust memory. */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_LINE_BYTES = 4 * 1024;
const CR = 13;
const LF = 10;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Done,
}

export class ResponseParser {
  private state = State.Head;
  /** Bytes of an unfinished head or line, kept across deliveries. */
  private partial: Uint8Array | null = null;
  private remaining = 0;
  private keepAlive = true;
  /** The line `line()` found last (null: none yet, the line is unfinished). */
  private lineBuf: Uint8Array | null = null;
  private lineStart = 0;
  private lineEnd = 0;

  /** `noBody`: the request was HEAD, so whatever the head says, no body follows. */
  constructor(
    private readonly sink: ResponseSink,
    private noBody = false,
  ) {}

  /** Ready for the next response on the same connection (one parser per connection, not per request). */
  reset(noBody = false): void {
    this.state = State.Head;
    this.partial = null;
    this.lineBuf = null;
    this.remaining = 0;
    this.keepAlive = true;
    this.noBody = noBody;
  }

  get done(): boolean {
    return this.state === State.Done;
  }

  /** True while nothing of the response has arrived (a reused connection that failed here may be retried). */
  get untouched(): boolean {
    return this.state === State.Head && this.partial === null;
  }

  push(data: Uint8Array): void {
    let at = 0;
    while (at < data.length) {
      switch (this.state) {
        case State.Head:
          at = this.head(data, at);
          break;
        case State.Length:
          at = this.bodyBytes(data, at);
          if (this.remaining === 0) this.finish();
          break;
        case State.ChunkSize: {
          const next = this.partial === null ? this.wholeChunk(data, at) : -1;
          if (next >= 0) {
            at = next;
            break;
          }
          at = this.line(data, at);
          if (this.lineBuf) this.chunkSize(this.lineBuf, this.lineStart, this.lineEnd);
          break;
        }
        case State.ChunkData:
          at = this.bodyBytes(data, at);
          if (this.remaining === 0) this.state = State.ChunkDataEnd;
          break;
        case State.ChunkDataEnd:
          at = this.line(data, at);
          if (!this.lineBuf) break;
          if (this.lineEnd !== this.lineStart) throw new Http1ParseError("chunk data longer than its size");
          this.state = State.ChunkSize;
          break;
        case State.Trailers:
          at = this.line(data, at);
          if (this.lineBuf && this.lineEnd === this.lineStart) this.finish();
          break;
        case State.UntilClose:
          this.sink.body(data, at, data.length);
          return;
        case State.Done:
          throw new Http1ParseError("bytes after the end of the response");
      }
    }
  }

  /** The connection ended. A body framed by the close is complete; anything else was cut short. */
  eof(): void {
    if (this.state === State.UntilClose) {
      this.state = State.Done;
      this.sink.end(false);
      return;
    }
    if (this.state !== State.Done) throw new Http1ParseError("connection closed before the response was complete");
  }

  /** Hands over up to `remaining` body bytes from `at`; returns where the delivery continues. */
  private bodyBytes(data: Uint8Array, at: number): number {
    const n = Math.min(this.remaining, data.length - at);
    this.sink.body(data, at, at + n);
    this.remaining -= n;
    return at + n;
  }

  private finish(): void {
    this.state = State.Done;
    this.sink.end(this.keepAlive);
  }

  /** Gathers the head up to its blank line, then parses it. */
  private head(data: Uint8Array, at: number): number {
    // The head so far: the kept part plus this delivery, or this delivery alone from `at`.
    const kept = this.partial ? this.partial.length : 0;
    const buf = this.partial ? concat(this.partial, data, at, data.length) : data;
    const start = this.partial ? 0 : at;
    const end = headEnd(buf, Math.max(start, kept - 3));
    if (end < 0) {
      if (buf.length - start > MAX_HEAD_BYTES) throw new Http1ParseError("response head too large");
      this.partial = buf === data ? data.slice(at) : buf;
      return data.length;
    }
    this.partial = null;
    this.parseHead(buf, start, end);
    // Where this delivery continues: the head ended at `end + 4` of `buf`, whose first `kept` bytes came earlier.
    return buf === data ? end + 4 : at + end + 4 - kept;
  }

  private parseHead(buf: Uint8Array, start: number, end: number): void {
    const { http10, status, statusText, headers, length, chunked, connection } = parseResponseHead(buf, start, end);
    // Interim answers (100 Continue, 103 Early Hints) precede the real one: skip them.
    if (status >= 100 && status < 200 && status !== 101) return;
    this.keepAlive = http10 ? connection.includes("keep-alive") : !connection.includes("close");
    const bodyless = this.noBody || status === 204 || status === 304 || status === 101;
    const untilClose = !bodyless && !chunked && length < 0;
    if (untilClose) this.keepAlive = false;
    this.sink.head({ status, statusText, headers, untilClose, keepAlive: this.keepAlive });
    if (bodyless || length === 0) this.finish();
    else if (chunked) this.state = State.ChunkSize;
    else if (length > 0) {
      this.state = State.Length;
      this.remaining = length;
    } else this.state = State.UntilClose;
  }

  /**
   * A whole chunk from `at` in this delivery, framed the plain way (hex size, CRLF, the data, CRLF: what
   * servers send, one chunk per write), handed over at once; returns where the delivery continues, or
   * -1 to leave it to the line-by-line reading (a split chunk, extensions, the last chunk, anything
   * malformed), which gives the same piece for these bytes. Why: a streamed SSE body arrives one chunk
   * per delivery, and the two line searches and the states between them were ~1,200 instructions of
   * each (callgrind, bench/probes/instructions.ts).
   */
  private wholeChunk(data: Uint8Array, at: number): number {
    const end = data.length;
    let i = at;
    let size = 0;
    for (let v: number; i < end && i - at < 12 && (v = hexValue(data[i]!)) >= 0; i++) size = size * 16 + v;
    if (i === at || size === 0 || i + 1 >= end || data[i] !== CR || data[i + 1] !== LF) return -1;
    const from = i + 2;
    const to = from + size;
    if (to + 1 >= end || data[to] !== CR || data[to + 1] !== LF) return -1;
    this.sink.body(data, from, to);
    return to + 2;
  }

  private chunkSize(buf: Uint8Array, start: number, end: number): void {
    const size = chunkSizeOf(buf, start, end);
    if (size === 0) this.state = State.Trailers;
    else {
      this.state = State.ChunkData;
      this.remaining = size;
    }
  }

  /**
   * Gathers one CRLF-ended line (kept across deliveries); returns where the delivery continues. A whole
   * line is left in lineBuf[lineStart, lineEnd) without its CRLF; lineBuf is null while the line is unfinished.
   * (Fields rather than a callback: a closure per line was two functions made per chunk of a streamed body.)
   */
  private line(data: Uint8Array, at: number): number {
    const lf = data.indexOf(LF, at);
    if (lf < 0) {
      this.lineBuf = null;
      this.partial = this.partial ? concat(this.partial, data, at, data.length) : data.slice(at);
      if (this.partial.length > MAX_LINE_BYTES) throw new Http1ParseError("line too long");
      return data.length;
    }
    const buf = this.partial ? concat(this.partial, data, at, lf) : data;
    const start = this.partial ? 0 : at;
    const end = this.partial ? buf.length : lf;
    this.partial = null;
    if (end === start || buf[end - 1] !== CR) throw new Http1ParseError("line not ended by CRLF");
    this.lineBuf = buf;
    this.lineStart = start;
    this.lineEnd = end - 1;
    return lf + 1;
  }
}

/** Index of the CRLFCRLF ending a head, searching from `from`; -1 when not there yet. */
function headEnd(buf: Uint8Array, from: number): number {
  for (let i = buf.indexOf(CR, from); i >= 0 && i + 3 < buf.length; i = buf.indexOf(CR, i + 1)) {
    if (buf[i + 1] === LF && buf[i + 2] === CR && buf[i + 3] === LF) return i;
  }
  return -1;
}

/** `a` followed by `b[from, to)` (no view of b: platform/bytes.ts). */
function concat(a: Uint8Array, b: Uint8Array, from: number, to: number): Uint8Array {
  const out = new Uint8Array(a.length + to - from);
  out.set(a);
  copyRange(b, from, to, out, a.length);
  return out;
}

const hexValue = (b: number): number => (b >= 48 && b <= 57 ? b - 48 : b >= 97 && b <= 102 ? b - 87 : b >= 65 && b <= 70 ? b - 55 : -1);

/** A chunk-size line (RFC 9112 §7.1): 1-12 hex digits, optional whitespace, then `;extensions` (ignored). */
function chunkSizeOf(buf: Uint8Array, start: number, end: number): number {
  let i = start;
  let size = 0;
  for (; i < end && hexValue(buf[i]!) >= 0; i++) size = size * 16 + hexValue(buf[i]!);
  const digits = i - start;
  while (i < end && (buf[i] === 32 || buf[i] === 9)) i++;
  if (digits === 0 || digits > 12 || (i < end && buf[i] !== 59)) {
    throw new Http1ParseError(`bad chunk size: ${JSON.stringify(latin1(buf, start, Math.min(end, start + 40)))}`);
  }
  return size;
}
