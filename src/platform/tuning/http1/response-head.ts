// A response head (status line and header lines, RFC 9112 §4 and §5) read from its bytes in place.
//
// Why bytes rather than the head as a string split into lines: the string way (split on CRLF, then per
// line indexOf, slice, toLowerCase, slice, trim) cost ~0.9 µs for a four-header head on the bench VM,
// two thirds of it in toLowerCase of freshly sliced names. Here the lines and colons are found in the
// bytes, a name already met is recognised by its bytes and handed out as the same lower-case
// string (no string made for it), and each value is one latin1 decoding of its trimmed range.

export class Http1ParseError extends Error {
  override readonly name = "Http1ParseError";
}

/** The head as read: what the parser frames the body with, and what the sink receives. */
export interface ParsedHead {
  http10: boolean;
  status: number;
  statusText: string;
  /** Header pairs in arrival order, names lower-cased, values trimmed. */
  headers: [string, string][];
  /** Content-Length (-1: none). */
  length: number;
  chunked: boolean;
  /** The Connection header, lower-cased ("" when absent). */
  connection: string;
}

const CR = 13;
const LF = 10;
const COLON = 58;

// Buffer's latin1 decoding reads a range of any Uint8Array in place (no view made).
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice;

export function latin1(buf: Uint8Array, start: number, end: number): string {
  return latin1Slice.call(buf, start, end);
}

/** Reads the head in buf[start, end): `end` is where its blank line's CRLF CRLF begins. */
export function parseResponseHead(buf: Uint8Array, start: number, end: number): ParsedHead {
  let eol = lineEnd(buf, start, end);
  const { http10, status, statusText } = statusLine(buf, start, eol);
  const headers: [string, string][] = [];
  let length = -1;
  let chunked = false;
  let connection = "";
  for (let at = eol + 2; eol < end; at = eol + 2) {
    eol = lineEnd(buf, at, end);
    const colon = buf.indexOf(COLON, at);
    if (colon <= at || colon >= eol)
      throw new Http1ParseError(`bad header line: ${JSON.stringify(latin1(buf, at, Math.min(eol, at + 80)))}`);
    const name = headerName(buf, at, colon);
    const value = trimmed(buf, colon + 1, eol);
    if (name === "content-length") {
      if (!/^\d+$/.test(value) || (length >= 0 && Number(value) !== length)) throw new Http1ParseError("bad content-length");
      length = Number(value);
    } else if (name === "transfer-encoding") {
      chunked = value === "chunked" || value.toLowerCase().split(",").at(-1)!.trim() === "chunked";
      if (!chunked) throw new Http1ParseError(`unsupported transfer-encoding: ${value}`);
    } else if (name === "connection") connection = value.toLowerCase();
    headers.push([name, value]);
  }
  return { http10, status, statusText, headers, length, chunked, connection };
}

/** Where the line from `at` ends: its CRLF, or `end` (a lone CR or LF stays inside the line). */
function lineEnd(buf: Uint8Array, at: number, end: number): number {
  for (let i = at; i < end; i++) if (buf[i] === CR && buf[i + 1] === LF) return i;
  return end;
}

const digit = (b: number): boolean => b >= 48 && b <= 57;
const HTTP1 = [72, 84, 84, 80, 47, 49, 46]; // "HTTP/1."

/** `HTTP/1.x SSS[ reason]`: a reason holds no CR or LF (they would end the line). */
function statusLine(buf: Uint8Array, at: number, eol: number): { http10: boolean; status: number; statusText: string } {
  let ok = eol - at >= 12 && (eol - at === 12 || buf[at + 12] === 32);
  for (let i = 0; ok && i < HTTP1.length; i++) ok = buf[at + i] === HTTP1[i];
  const minor = buf[at + 7]!;
  ok &&= (minor === 48 || minor === 49) && buf[at + 8] === 32 && digit(buf[at + 9]!) && digit(buf[at + 10]!) && digit(buf[at + 11]!);
  for (let i = at + 13; ok && i < eol; i++) ok = buf[i] !== CR && buf[i] !== LF;
  if (!ok) throw new Http1ParseError(`bad status line: ${JSON.stringify(latin1(buf, at, Math.min(eol, at + 80)))}`);
  const status = (buf[at + 9]! - 48) * 100 + (buf[at + 10]! - 48) * 10 + (buf[at + 11]! - 48);
  return { http10: minor === 48, status, statusText: eol - at > 12 ? latin1(buf, at + 13, eol) : "" };
}

// String.prototype.trim's whitespace within latin1: TAB, LF, VT, FF, CR, space, no-break space.
const space = (b: number): boolean => b === 32 || (b >= 9 && b <= 13) || b === 160;

function trimmed(buf: Uint8Array, from: number, to: number): string {
  while (from < to && space(buf[from]!)) from++;
  while (to > from && space(buf[to - 1]!)) to--;
  return from === to ? "" : latin1(buf, from, to);
}

/**
 * Lower-case header names met so far, by length. An upstream sends the same dozen names on every
 * response; matching their bytes against these strings makes no string per header. Names of up to 64
 * bytes are kept, at most 256 of them (an upstream inventing names costs a decoding per header, not
 * memory). A match is always right: a kept name is toLowerCase's output, whose characters are their own
 * lower case, so bytes equal to it after folding A-Z are bytes that toLowerCase turns into it. A miss
 * (a non-ASCII capital, say) only costs the decoding, and keeps nothing twice.
 */
const MAX_KNOWN = 256;
const MAX_KNOWN_LENGTH = 64;
/** Names of one length kept at most: a lookup compares against no more than these (a head of thousands of lines stays linear). */
const MAX_SAME_LENGTH = 16;
const known: string[][] = Array.from({ length: MAX_KNOWN_LENGTH + 1 }, () => []);
let knownCount = 0;

function headerName(buf: Uint8Array, from: number, to: number): string {
  const n = to - from;
  const same = n <= MAX_KNOWN_LENGTH ? known[n]! : [];
  for (const name of same) if (equalsLower(buf, from, name)) return name;
  const name = latin1(buf, from, to).toLowerCase();
  if (n <= MAX_KNOWN_LENGTH && knownCount < MAX_KNOWN && same.length < MAX_SAME_LENGTH && !same.includes(name)) {
    same.push(name);
    knownCount++;
  }
  return name;
}

/** buf[from, from + name.length) lower-cased (ASCII letters only) equals `name`. */
function equalsLower(buf: Uint8Array, from: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const b = buf[from + i]!;
    if ((b >= 65 && b <= 90 ? b + 32 : b) !== name.charCodeAt(i)) return false;
  }
  return true;
}
