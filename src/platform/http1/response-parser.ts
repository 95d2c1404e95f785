// An incremental HTTP/1.1 response parser (RFC 9112): bytes go in as the socket delivers them, split
// anywhere; the head, the body's pieces and its end come out through callbacks. Bodies are framed by
// Content-Length, by chunked transfer coding (extensions and trailers skipped), or by the connection's
// close. Interim 1xx heads are skipped. Body pieces are views into the delivered buffers, not copies.
// Malformed input throws Http1ParseError; the connection is then unusable.

export class Http1ParseError extends Error {
  override readonly name = "Http1ParseError";
}

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
  body(piece: Uint8Array): void;
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

  /** `noBody`: the request was HEAD, so whatever the head says, no body follows. */
  constructor(
    private readonly sink: ResponseSink,
    private noBody = false,
  ) {}

  /** Ready for the next response on the same connection (one parser per connection, not per request). */
  reset(noBody = false): void {
    this.state = State.Head;
    this.partial = null;
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
        case State.ChunkSize:
          at = this.line(data, at, (line) => this.chunkSize(line));
          break;
        case State.ChunkData:
          at = this.bodyBytes(data, at);
          if (this.remaining === 0) this.state = State.ChunkDataEnd;
          break;
        case State.ChunkDataEnd:
          at = this.line(data, at, (line) => {
            if (line.length !== 0) throw new Http1ParseError("chunk data longer than its size");
            this.state = State.ChunkSize;
          });
          break;
        case State.Trailers:
          at = this.line(data, at, (line) => {
            if (line.length === 0) this.finish();
          });
          break;
        case State.UntilClose:
          this.sink.body(at === 0 ? data : data.subarray(at));
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
    this.sink.body(data.subarray(at, at + n));
    this.remaining -= n;
    return at + n;
  }

  private finish(): void {
    this.state = State.Done;
    this.sink.end(this.keepAlive);
  }

  /** Gathers the head up to its blank line, then parses it. */
  private head(data: Uint8Array, at: number): number {
    const buf = this.partial ? concat(this.partial, data.subarray(at)) : data.subarray(at);
    const start = this.partial ? this.partial.length : 0;
    const end = headEnd(buf, Math.max(0, start - 3));
    if (end < 0) {
      if (buf.length > MAX_HEAD_BYTES) throw new Http1ParseError("response head too large");
      this.partial = buf.slice();
      return data.length;
    }
    this.partial = null;
    this.parseHead(latin1(buf, 0, end));
    // What this delivery held beyond the head: `end + 4 - start` bytes of `data` from `at` were the head.
    return at + end + 4 - start;
  }

  private parseHead(text: string): void {
    const lines = text.split("\r\n");
    const statusLine = lines[0]!;
    const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(statusLine);
    if (!m) throw new Http1ParseError(`bad status line: ${JSON.stringify(statusLine.slice(0, 80))}`);
    const http10 = m[1] === "0";
    const status = Number(m[2]);
    const headers: [string, string][] = [];
    let length = -1;
    let chunked = false;
    let connection = "";
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(":");
      if (colon <= 0) throw new Http1ParseError(`bad header line: ${JSON.stringify(line.slice(0, 80))}`);
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "content-length") {
        if (!/^\d+$/.test(value) || (length >= 0 && Number(value) !== length)) throw new Http1ParseError("bad content-length");
        length = Number(value);
      } else if (name === "transfer-encoding") {
        chunked = value.toLowerCase().split(",").at(-1)!.trim() === "chunked";
        if (!chunked) throw new Http1ParseError(`unsupported transfer-encoding: ${value}`);
      } else if (name === "connection") connection = value.toLowerCase();
      headers.push([name, value]);
    }
    // Interim answers (100 Continue, 103 Early Hints) precede the real one: skip them.
    if (status >= 100 && status < 200 && status !== 101) return;
    this.keepAlive = http10 ? connection.includes("keep-alive") : !connection.includes("close");
    const bodyless = this.noBody || status === 204 || status === 304 || status === 101;
    const untilClose = !bodyless && !chunked && length < 0;
    if (untilClose) this.keepAlive = false;
    this.sink.head({ status, statusText: m[3] ?? "", headers, untilClose, keepAlive: this.keepAlive });
    if (bodyless || length === 0) this.finish();
    else if (chunked) this.state = State.ChunkSize;
    else if (length > 0) {
      this.state = State.Length;
      this.remaining = length;
    } else this.state = State.UntilClose;
  }

  private chunkSize(line: Uint8Array): void {
    const text = latin1(line, 0, line.length);
    const semi = text.indexOf(";");
    const hex = (semi < 0 ? text : text.slice(0, semi)).trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) throw new Http1ParseError(`bad chunk size: ${JSON.stringify(text.slice(0, 40))}`);
    const size = parseInt(hex, 16);
    if (size === 0) this.state = State.Trailers;
    else {
      this.state = State.ChunkData;
      this.remaining = size;
    }
  }

  /** Gathers one CRLF-ended line (kept across deliveries) and hands it over without its CRLF. */
  private line(data: Uint8Array, at: number, use: (line: Uint8Array) => void): number {
    const lf = data.indexOf(LF, at);
    if (lf < 0) {
      this.partial = this.partial ? concat(this.partial, data.subarray(at)) : data.slice(at);
      if (this.partial.length > MAX_LINE_BYTES) throw new Http1ParseError("line too long");
      return data.length;
    }
    let line = this.partial ? concat(this.partial, data.subarray(at, lf)) : data.subarray(at, lf);
    this.partial = null;
    if (line.length === 0 || line[line.length - 1] !== CR) throw new Http1ParseError("line not ended by CRLF");
    line = line.subarray(0, line.length - 1);
    use(line);
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

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function latin1(buf: Uint8Array, start: number, end: number): string {
  return Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString("latin1");
}
