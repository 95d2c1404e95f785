import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jitCode, jitCodeAt } from "../../../bench/jitdump";

const dir = mkdtempSync(join(tmpdir(), "sw-jitdump-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A jitdump (perf's format): a 40-byte file header, then JIT_CODE_LOAD records (id 0). */
function jitdump(loads: { start: number; size: number; name: string }[]): string {
  const parts: Buffer[] = [];
  const header = Buffer.alloc(40);
  header.writeUInt32LE(0x4a695444, 0); // magic
  header.writeUInt32LE(1, 4); // version
  header.writeUInt32LE(40, 8); // header size: where records begin
  parts.push(header);
  loads.forEach((l, i) => {
    const name = Buffer.from(l.name + "\0");
    const rec = Buffer.alloc(56 + name.length + l.size);
    rec.writeUInt32LE(0, 0); // JIT_CODE_LOAD
    rec.writeUInt32LE(rec.length, 4);
    rec.writeBigUInt64LE(BigInt(l.start), 24); // vma
    rec.writeBigUInt64LE(BigInt(l.start), 32); // code_addr
    rec.writeBigUInt64LE(BigInt(l.size), 40); // code_size
    rec.writeBigUInt64LE(BigInt(i), 48); // code_index
    name.copy(rec, 56);
    parts.push(rec);
  });
  const path = join(dir, `jit-${parts.length}.dump`);
  writeFileSync(path, Buffer.concat(parts));
  return path;
}

describe("jitdump", () => {
  test("an address is named by the latest code loaded over it (JSC reuses freed code's addresses)", async () => {
    const code = await jitCode(
      jitdump([
        { start: 0x1000, size: 0x100, name: "JSC-Baseline: old#A" },
        { start: 0x2000, size: 0x10, name: "JSC-DFG: other#B" },
        { start: 0x1080, size: 0x100, name: "JSC-FTL: new#C" },
      ]),
    );
    expect(jitCodeAt(code, 0x1090)?.name).toBe("JSC-FTL:_new#C"); // spaces become "_" (a perf map line is split on spaces);
    expect(jitCodeAt(code, 0x1010)).toBeUndefined(); // old#A was overwritten: its range no longer names anything
    expect(jitCodeAt(code, 0x2000)?.name).toBe("JSC-DFG:_other#B");
    expect(jitCodeAt(code, 0x2010)).toBeUndefined(); // one past the end
  });
});
