// JSC's jitdump (BUN_JSC_useJITDump=1: the perf jitdump format) read back as the address ranges of the
// JIT'd functions, so that tools which only see code addresses can name them (Bun ships without
// symbols): bench/perf-js.ts writes them as a perf map, bench/probes/instructions.ts names callgrind's
// "???" functions with them.

export interface JitCode {
  start: number;
  end: number;
  /** e.g. "JSC-DFG:_drain#CYst2H" (tier, function name, code block hash; spaces made "_" for perf maps). */
  name: string;
}

/**
 * JIT_CODE_LOAD records of a jitdump, sorted by address. JSC frees code and reuses its addresses, so
 * records overlap: the latest record of an address wins (an earlier one would charge a hot FTL
 * function's cost to whatever was first compiled there).
 */
export async function jitCode(dump: string): Promise<JitCode[]> {
  const buf = await Bun.file(dump).arrayBuffer();
  const view = new DataView(buf);
  const bytes = new Uint8Array(buf);
  const decoder = new TextDecoder();
  const records: JitCode[] = [];
  for (let off = view.getUint32(8, true); off + 16 <= buf.byteLength;) {
    const id = view.getUint32(off, true);
    const size = view.getUint32(off + 4, true);
    if (size === 0) break;
    if (id === 0) {
      // Record header (16 bytes), then pid, tid, vma, code_addr, code_size, code_index, name.
      const start = Number(view.getBigUint64(off + 32, true));
      const end = start + Number(view.getBigUint64(off + 40, true));
      const nameEnd = bytes.indexOf(0, off + 56);
      records.push({ start, end, name: decoder.decode(bytes.subarray(off + 56, nameEnd)).replace(/\s+/g, "_") });
    }
    off += size;
  }
  // Latest first; a record is kept when no later one overlaps it (kept: sorted by start).
  const kept: JitCode[] = [];
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    const at = firstAtOrAfter(kept, r.start);
    const before = kept[at - 1];
    const after = kept[at];
    if ((before && before.end > r.start) || (after && after.start < r.end)) continue;
    kept.splice(at, 0, r);
  }
  return kept;
}

/** The JIT'd function whose code holds `addr`, if any. */
export function jitCodeAt(code: readonly JitCode[], addr: number): JitCode | undefined {
  const c = code[firstAtOrAfter(code, addr + 1) - 1];
  return c && addr < c.end ? c : undefined;
}

/** Index of the first record starting at or after `addr` (binary search). */
function firstAtOrAfter(code: readonly JitCode[], addr: number): number {
  let lo = 0;
  let hi = code.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (code[mid]!.start < addr) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
