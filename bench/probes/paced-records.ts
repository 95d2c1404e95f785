// `bun bench/probes/paced-records.ts [records/s] [seconds]`: CPU per request record when records come at a
// gateway's pace (default 67/s: the bench's 8 streams) instead of all at once (bench/record-writer.ts), for
// several flush intervals, each in a fresh process on a fresh SQLite file pinned to core 1. At low rates a
// batch's commit (its B-tree pages written to the WAL) is shared by few records, so the interval decides
// what a record costs. FLUSH_MS=… runs one interval in this process (the child mode). The process is idle
// between records, so caches are as cold as in a gateway between network reads.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/platform/db/database";
import { RecordWriter } from "../../src/metering/record-writer";
import type { RequestRecord } from "../../src/metering/request-record";
import { pinned } from "../procs";
import { makeRecord } from "../../test/integration/metering/test-db";

const rate = Number(Bun.argv[2] ?? 67);
const seconds = Number(Bun.argv[3] ?? 20);

/** A gateway's record as it comes: time-ordered IDs (as requestIdFrom makes them), written now. */
function record(i: number): RequestRecord {
  return makeRecord({
    requestId: `req_${Bun.randomUUIDv7().replaceAll("-", "")}`,
    createdAt: Date.now(),
    provider: `provider-${i % 2}`,
    tags: null,
    customFields: null,
  });
}

async function child(flushMs: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sy-paced-"));
  const db = await openDatabase(`sqlite:${join(dir, "paced.db")}`);
  await db.migrate();
  const writer = new RecordWriter(db, { flushIntervalMs: flushMs });
  // One second of warm-up at the pace, then the measured span.
  const total = rate * (seconds + 1);
  const warm = rate;
  let i = 0;
  let c0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise<void>((done) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
      while (i < due) {
        const r = record(i++);
        // The baseline (FLUSH_MS=0) makes the records but writes none: the pacing's own cost.
        if (flushMs > 0) writer.enqueue(r);
        if (i === warm) c0 = process.cpuUsage();
      }
      if (i >= total) {
        clearInterval(tick);
        done();
      }
    }, 1000 / rate);
  });
  await writer.drain();
  const c = process.cpuUsage(c0);
  console.log(JSON.stringify({ flushMs, perRecordUs: (c.user + c.system) / (total - warm), userUs: c.user / (total - warm) }));
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

if (process.env.FLUSH_MS) await child(Number(process.env.FLUSH_MS));
else {
  // The baseline (0: records made, none written) is the pacing's own cost: subtract it.
  for (const round of [1, 2, 3]) {
    for (const ms of [0, 100, 250, 500]) {
      const p = Bun.spawn(pinned([process.execPath, import.meta.path, String(rate), String(seconds)], 1), {
        env: { ...process.env, FLUSH_MS: String(ms) },
        stdout: "pipe",
      });
      const out = (await new Response(p.stdout).text()).trim();
      await p.exited;
      console.log(`round ${round}: ${out}`);
    }
  }
}
