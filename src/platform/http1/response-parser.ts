// Incremental parser of HTTP/1.1 responses (RFC 9112) for the upstream client: the head (status line
// and header fields, 1xx interim responses skipped), then the body framed by Content-Length, chunked
// transfer coding, or the end of the connection. Bytes arrive as the socket delivers them and may split
// anywhere; body bytes are handed on as they are decoded, never gathered up.

const CRLFCRLF = Buffer.from("\r\n\r\n");

export interface ResponseHead {
  status: number;
  statusText: string;
  headers: Headers;
  /** The connection may carry another request after this response. */
  keepAlive: boolean;
}

export interface ParserSink {
  head(head: ResponseHead): void;
  /** A piece of the decoded body (a view of the socket's buffer: copy it to keep it). */
  body(bytes: Uint8Array): void;
  /** The body is complete (not called for a body framed by the end of the connection). */
  end(): void;
}

type Framing = { kind: "length"; left: number } | { kind: "chunked" } | { kind: "close" } | { kind: "none" };
type ChunkState = "size" | "data" | "data-crlf" | "trailers";

export class ParseError extends Error {
  override name = "ParseError";
}

export class ResponseParser {
  private headBytes: Buffer | null = null;
  private inBody = false;
  private done = false;
  private framing: Framing = { kind: "none" };
  private chunk: ChunkState = "size";
  private chunkLeft = 0;
  private line = "";
  private keepAliveOk = true;

  constructor(
    private readonly sink: ParserSink,
    private readonly maxHeadBytes = 64 * 1024,
    /** HEAD requests have no response body whatever the headers say. */
    private readonly noBody = false,
  ) {}

  /** True once the whole response (head and body) has been parsed. */
  get complete(): boolean {
    return this.done;
  }

  /** True once a final (non-1xx) head has arrived. */
  get started(): boolean {
    return this.inBody || this.done;
  }

  /** The body runs until the connection ends. */
  get readsToClose(): boolean {
    return this.inBody && this.framing.kind === "close";
  }

  /** The connection may carry another request once this response is complete. */
  get keepAlive(): boolean {
    return this.keepAliveOk;
  }

  feed(data: Uint8Array): void {
    let buf = data;
    while (buf.length > 0 && !this.done) {
      if (!this.inBody) {
        const rest = this.feedHead(buf);
        if (rest === null) return;
        buf = rest;
      } else {
        buf = this.feedBody(buf);
      }
    }
    if (this.done && buf.length > 0) throw new ParseError("bytes after the end of the response");
  }

  /** Consumes head bytes; returns what follows the head, or null while the head is incomplete. */
  private feedHead(data: Uint8Array): Uint8Array | null {
    const all = this.headBytes ? Buffer.concat([this.headBytes, data]) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const at = all.indexOf(CRLFCRLF);
    if (at < 0) {
      if (all.length > this.maxHeadBytes) throw new ParseError("response head too large");
      this.headBytes = Buffer.from(all); // a copy: the socket may reuse its buffer
      return null;
    }
    this.headBytes = null;
    const rest = all.subarray(at + 4);
    const head = parseHead(all.toString("latin1", 0, at));
    if (head.status < 200) return rest; // 1xx interim response: the real one follows
    this.keepAliveOk = head.keepAlive;
    this.framing = this.noBody || head.status === 204 || head.status === 304 ? { kind: "none" } : framingOf(head.headers);
    if (this.framing.kind === "close") this.keepAliveOk = false;
    head.keepAlive = this.keepAliveOk;
    this.inBody = true;
    this.sink.head(head);
    if (this.framing.kind === "none" || (this.framing.kind === "length" && this.framing.left === 0)) this.finish();
    return rest;
  }

  private feedBody(buf: Uint8Array): Uint8Array {
    const f = this.framing;
    if (f.kind === "close") {
      this.sink.body(buf);
      return buf.subarray(buf.length);
    }
    if (f.kind === "length") {
      const n = Math.min(f.left, buf.length);
      f.left -= n;
      this.sink.body(buf.subarray(0, n));
      if (f.left === 0) this.finish();
      return buf.subarray(n);
    }
    return this.feedChunked(buf);
  }

  private feedChunked(buf: Uint8Array): Uint8Array {
    let i = 0;
    while (i < buf.length && !this.done) {
      if (this.chunk === "data") {
        const n = Math.min(this.chunkLeft, buf.length - i);
        this.sink.body(buf.subarray(i, i + n));
        i += n;
        this.chunkLeft -= n;
        if (this.chunkLeft === 0) this.chunk = "data-crlf";
        continue;
      }
      // Line-oriented states: the size line, the CRLF after data, the trailer section.
      const nl = buf.indexOf(10, i);
      const end = nl < 0 ? buf.length : nl;
      this.line += Buffer.from(buf.buffer, buf.byteOffset + i, end - i).toString("latin1");
      if (this.line.length > 4096) throw new ParseError("chunk framing line too long");
      i = end;
      if (nl < 0) break;
      i++;
      const line = this.line.endsWith("\r") ? this.line.slice(0, -1) : this.line;
      this.line = "";
      this.onChunkLine(line);
    }
    return buf.subarray(i);
  }

  private onChunkLine(line: string): void {
    if (this.chunk === "data-crlf") {
      if (line !== "") throw new ParseError("chunk data not followed by CRLF");
      this.chunk = "size";
    } else if (this.chunk === "size") {
      const hex = line.split(";", 1)[0]!.trim();
      if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) throw new ParseError("bad chunk size");
      const size = parseInt(hex, 16);
      if (size === 0) this.chunk = "trailers";
      else {
        this.chunkLeft = size;
        this.chunk = "data";
      }
    } else if (line === "") {
      this.finish(); // the empty line that ends the trailer section
    }
  }

  private finish(): void {
    this.done = true;
    this.sink.end();
  }
}

function parseHead(text: string): ResponseHead {
  const lines = text.split("\r\n");
  const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0] ?? "");
  if (!m) throw new ParseError("bad status line");
  const headers = new Headers();
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!;
    const c = l.indexOf(":");
    if (c <= 0) throw new ParseError("bad header line");
    headers.append(l.slice(0, c).trim(), l.slice(c + 1).trim());
  }
  const connection = headers.get("connection")?.toLowerCase() ?? "";
  const keepAlive = m[1] === "1" ? !connection.includes("close") : connection.includes("keep-alive");
  return { status: Number(m[2]), statusText: m[3] ?? "", headers, keepAlive };
}

function framingOf(headers: Headers): Framing {
  const te = headers.get("transfer-encoding");
  if (te !== null) {
    if (te.toLowerCase().trim().endsWith("chunked")) return { kind: "chunked" };
    return { kind: "close" };
  }
  const cl = headers.get("content-length");
  if (cl !== null) {
    // Repeated identical values ("10, 10") are allowed; differing ones are an error.
    const values = new Set(cl.split(",").map((v) => v.trim()));
    const only = values.size === 1 ? [...values][0]! : "";
    if (!/^\d{1,15}$/.test(only)) throw new ParseError("bad content-length");
    return { kind: "length", left: Number(only) };
  }
  return { kind: "close" };
}
