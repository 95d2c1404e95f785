// Request bodies as the edge reads them, after the API key is checked: counted while they stream in (413
// at the limit, whatever Content-Length says or if it is absent), parsed with a cap on nesting depth
// (checked on the text, without recursion, so a deep body cannot exhaust the stack), and refused when a
// string holds NUL, which Postgres `text` cannot store (so both databases give the same 400).
import { ApiError } from "./errors";
import { pointerToParam } from "./param-path";

/** Arrays and objects nested deeper than this are refused (400 invalid_request). */
export const MAX_JSON_DEPTH = 64;

const MB = 1024 * 1024;

export function tooLarge(limitBytes: number): ApiError {
  const mb = Math.round((limitBytes / MB) * 100) / 100;
  return new ApiError("request_too_large", `The request body is larger than this route's limit of ${mb} MB.`);
}

/** The body as text, never more than `limitBytes` of it buffered. */
export async function readBody(request: Request, limitBytes: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (Number(declared) > limitBytes) throw tooLarge(limitBytes);
    // The server reads no more than the declared length for this request: the native reader is safe.
    return request.text();
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      reader.cancel().catch(() => {});
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
}

/** The parsed body, or a 400: not JSON (invalid_request), too deep (invalid_request), a NUL (invalid_parameter). */
export function parseJsonBody(text: string): unknown {
  if (nestsDeeper(text, MAX_JSON_DEPTH)) {
    throw new ApiError("invalid_request", `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The request body is not valid JSON.");
  }
  // JSON text cannot hold a raw NUL in a string, only its escape: no escape, no walk.
  if (text.includes("\\u0000")) {
    const at = nulPointer(value, "");
    if (at !== null) throw nulError(pointerToParam(at) || "body");
  }
  return value;
}

export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  return parseJsonBody(await readBody(request, limitBytes));
}

export function nulError(param: string): ApiError {
  return new ApiError("invalid_parameter", `Invalid '${param}': text cannot contain the NUL character (\\u0000).`, { param });
}

/** The first query or path parameter holding NUL, refused; only percent-decoding makes one, so `%00` is the cue. */
export function refuseNulParams(url: string, params: Record<string, string | undefined>, query: Record<string, unknown>): void {
  if (!url.includes("%00")) return;
  // A wildcard route's rest of the path is the parameter named "*", and the router may leave it encoded.
  for (const [name, v] of Object.entries(params)) {
    if (typeof v === "string" && (v.includes("\0") || v.includes("%00"))) throw nulError(name === "*" ? "path" : name);
  }
  for (const [name, v] of Object.entries(query)) {
    if (name.includes("\0")) throw nulError(name.replaceAll("\0", "\\u0000"));
    const values = Array.isArray(v) ? v : [v];
    if (values.some((x) => typeof x === "string" && x.includes("\0"))) throw nulError(name);
  }
}

/** Whether arrays/objects nest deeper than `max`: one pass over the text, strings skipped. */
function nestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i);
      if (i < 0) return false;
    } else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** The index of the quote closing the string opened at `open`, or -1 (then JSON.parse reports it). */
function stringEnd(text: string, open: number): number {
  let i = open;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(i - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return i;
  }
}

/** The JSON pointer of the first key or string holding NUL (depth is already bounded, so recursion is safe). */
function nulPointer(value: unknown, at: string): string | null {
  if (typeof value === "string") return value.includes("\0") ? at : null;
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPointer(value[i], `${at}/${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    const here = `${at}/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (k.includes("\0")) return here.replaceAll("\0", "\\u0000");
    const found = nulPointer(v, here);
    if (found !== null) return found;
  }
  return null;
}
