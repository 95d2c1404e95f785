// The `param` form of docs/contract.md "Upstreams, errors and timeouts" (`gateway.metadata.tags[3]`) from a JSON pointer, for every validator.

/** `/messages/0/content` → `messages[0].content`. */
export function pointerToParam(pointer: string): string {
  let out = "";
  for (const part of pointer.split("/").slice(1)) {
    const seg = part.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(seg) ? `[${seg}]` : out ? `.${seg}` : seg;
  }
  return out;
}
