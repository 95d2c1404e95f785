// GET /usage/series on SQLite and Postgres: records written through the record writer at known times
// across hours, days and ISO weeks; the buckets, counters and TTFT percentiles are checked against a
// direct computation over the same records, and the totals against /usage (the rollups).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { makeRecord } from "../metering/test-db";
import type { RequestRecord } from "../../../src/metering/request-record";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();
const at = (iso: string) => Date.parse(iso);
const DAY = 86_400_000;
const daysBefore = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY).toISOString().slice(0, 10);

type Over = Partial<RequestRecord>;
const chat: Over = { model: "chat", modelCanonical: "acme/chat", provider: "alpha", apiKeyId: "k1" };
// 2026-03-02 is a Monday. Times sit on bucket edges on purpose (00:00:00.000, 23:59:59.999).
const FIXTURE: Over[] = [
  { ...chat, createdAt: at("2026-03-01T23:59:59.999Z"), ttftMs: 5 }, // the Sunday before: outside every range below
  { ...chat, createdAt: at("2026-03-03T12:00:00Z"), ttftMs: 77 }, // before the mid-week start_date
  { ...chat, createdAt: at("2026-03-04T10:15:00Z"), ttftMs: 120, inputTokens: 10, outputTokens: 20, costMicrodollars: 1000 },
  { ...chat, createdAt: at("2026-03-04T10:45:00Z"), ttftMs: 340, inputTokens: 11, outputTokens: 21, costMicrodollars: 1100 },
  { ...chat, provider: "beta", apiKeyId: "k2", createdAt: at("2026-03-04T11:05:00Z"), ttftMs: 2500 },
  // One call, two attempts at a day's first millisecond: the failed first attempt adds tokens, not a request or a TTFT.
  {
    ...chat,
    requestId: "req_two",
    attempt: 1,
    isFinalAttempt: false,
    success: false,
    statusCode: 503,
    provider: "beta",
    ttftMs: 50,
    inputTokens: 5,
    outputTokens: 0,
    costMicrodollars: 0,
    createdAt: at("2026-03-05T00:00:00Z"),
  },
  { ...chat, requestId: "req_two", attempt: 2, createdAt: at("2026-03-05T00:00:00Z"), ttftMs: 900 },
  {
    model: "other/m",
    modelCanonical: null,
    provider: "gamma",
    apiKeyId: null,
    success: false,
    statusCode: 500,
    ttftMs: null,
    inputTokens: 3,
    outputTokens: 0,
    costMicrodollars: 0,
    createdAt: at("2026-03-08T23:59:59.999Z"),
  },
  { ...chat, createdAt: at("2026-03-09T00:00:00Z"), ttftMs: 70_000 }, // the next Monday; TTFT in the open bin
  { ...chat, createdAt: at("2026-03-09T08:30:00Z"), ttftMs: null }, // a success without a TTFT
  { ...chat, createdAt: at("2026-03-10T00:00:00Z"), ttftMs: 15 }, // after the ranges
];

/** Linear interpolation between order statistics (numpy's default), in tenths of a ms as the API answers. */
function exactPercentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const r = p * (s.length - 1);
  const lo = s[Math.floor(r)]!;
  return Math.round((lo + (r - Math.floor(r)) * (s[Math.ceil(r)]! - lo)) * 10) / 10;
}

/** The expected figures of one bucket (or a whole range) over the records in [from, to), computed directly. */
function expected(records: RequestRecord[], from: number, to: number, keep: (r: RequestRecord) => boolean = () => true) {
  const rs = records.filter((r) => r.createdAt >= from && r.createdAt < to && keep(r));
  const final = rs.filter((r) => r.isFinalAttempt);
  const ttfts = final.filter((r) => r.success && r.ttftMs !== null).map((r) => r.ttftMs!);
  const sum = (f: (r: RequestRecord) => number) => rs.reduce((s, r) => s + f(r), 0);
  return {
    requests: final.length,
    errors: final.filter((r) => !r.success).length,
    input_tokens: sum((r) => r.inputTokens),
    output_tokens: sum((r) => r.outputTokens),
    cost_microdollars: sum((r) => r.costMicrodollars),
    ttfts,
  };
}

for (const kind of kinds) {
  describe(`usage series on ${kind}`, () => {
    let x: Session;
    let records: RequestRecord[];
    beforeAll(async () => {
      x = await openSession(kind);
      const other = await x.otherWorkspace();
      records = FIXTURE.map((o) => makeRecord({ workspaceId: x.ws, chargeCredits: false, ...o }));
      for (const r of records) x.s.deps.records.enqueue(r);
      // The same calls in another workspace must never show.
      for (const o of FIXTURE) x.s.deps.records.enqueue(makeRecord({ workspaceId: other.ws, chargeCredits: false, ...o }));
      await x.s.deps.records.flush();
    });
    afterAll(async () => {
      await x?.stop();
    });

    const series = (q: string) => x.call("GET", x.w(`/usage/series?${q}`));

    test("day buckets over an inclusive range, empty days included, one series named null", async () => {
      const r = await series("interval=day&start_date=2026-03-02&end_date=2026-03-09");
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ interval: "day", group_by: null, start_date: "2026-03-02", end_date: "2026-03-09" });
      const from = at("2026-03-02T00:00:00Z");
      expect(r.json.buckets).toEqual(Array.from({ length: 8 }, (_, i) => new Date(from + i * DAY).toISOString()));
      expect(r.json.series.length).toBe(1);
      const s = r.json.series[0];
      expect(s.group).toBeNull();
      for (let i = 0; i < 8; i++) {
        const e = expected(records, from + i * DAY, from + (i + 1) * DAY);
        expect({ day: i, requests: s.requests[i], errors: s.errors[i], input: s.input_tokens[i], cost: s.cost_microdollars[i] }).toEqual({
          day: i,
          requests: e.requests,
          errors: e.errors,
          input: e.input_tokens,
          cost: e.cost_microdollars,
        });
        if (e.ttfts.length === 0) expect(s.ttft_p50_ms[i]).toBeNull();
      }
      expect(s.requests).toEqual([0, 1, 3, 1, 0, 0, 1, 2]);
      expect(s.errors[6]).toBe(1);
      expect(s.ttft_p50_ms[2]).toBe(340); // 120, 340, 2500: each alone in its bin, so exact
    });

    test("the totals equal /usage's (the rollups) for the same days", async () => {
      for (const [start, end] of [
        ["2026-03-02", "2026-03-09"],
        ["2026-03-01", "2026-03-10"],
        ["2026-03-05", "2026-03-05"],
      ]) {
        const q = `start_date=${start}&end_date=${end}`;
        const [u, s] = await Promise.all([x.call("GET", x.w(`/usage?${q}`)), series(`interval=hour&group_by=provider&${q}`)]);
        expect(u.status).toBe(200);
        const { ttft_p50_ms: _a, ttft_p95_ms: _b, ...counts } = s.json.total;
        expect(counts).toEqual(u.json.total);
        expect(u.json.total.requests).toBeGreaterThan(0);
      }
    });

    test("hour buckets by model: each group's arrays, percentiles per bucket and totals", async () => {
      const r = await series("interval=hour&group_by=model&start_date=2026-03-04&end_date=2026-03-05");
      expect(r.status).toBe(200);
      expect(r.json.buckets.length).toBe(48);
      expect(r.json.buckets[10]).toBe("2026-03-04T10:00:00.000Z");
      expect(r.json.series.map((s: { group: string }) => s.group)).toEqual(["acme/chat"]);
      const s = r.json.series[0];
      const p = (values: number[], q: number) => exactPercentile(values, q);
      expect(s.requests[10]).toBe(2);
      expect(s.ttft_p50_ms[10]).toBe(p([120, 340], 0.5));
      expect(s.ttft_p95_ms[10]).toBe(p([120, 340], 0.95));
      expect(s.ttft_p50_ms[11]).toBe(2500);
      expect(s.requests[24]).toBe(1); // the retried call counts once, at 2026-03-05T00:00
      expect(s.input_tokens[24]).toBe(records[5]!.inputTokens + records[6]!.inputTokens);
      expect(s.ttft_p50_ms[24]).toBe(900); // the failed attempt's 50 ms is not a TTFT
      expect(s.ttft_p50_ms[0]).toBeNull();
      const e = expected(records, at("2026-03-04T00:00:00Z"), at("2026-03-06T00:00:00Z"));
      expect(s.total).toMatchObject({ requests: e.requests, ttft_p50_ms: p(e.ttfts, 0.5), ttft_p95_ms: p(e.ttfts, 0.95) });
      expect(r.json.total).toEqual(s.total);
    });

    test("week buckets start on Monday; a mid-week start_date counts records from that day only", async () => {
      const r = await series("interval=week&start_date=2026-03-04&end_date=2026-03-09");
      expect(r.status).toBe(200);
      expect(r.json.buckets).toEqual(["2026-03-02T00:00:00.000Z", "2026-03-09T00:00:00.000Z"]);
      const s = r.json.series[0];
      const first = expected(records, at("2026-03-04T00:00:00Z"), at("2026-03-09T00:00:00Z"));
      const second = expected(records, at("2026-03-09T00:00:00Z"), at("2026-03-10T00:00:00Z"));
      expect(s.requests).toEqual([first.requests, second.requests]);
      expect(s.errors).toEqual([first.errors, second.errors]);
      expect(s.ttft_p50_ms[1]).toBe(70_000);
      const whole = expected(records, at("2026-03-04T00:00:00Z"), at("2026-03-10T00:00:00Z"));
      const exact = exactPercentile(whole.ttfts, 0.95)!;
      // Bins are at most 1 s wide below 60 s, and the open bin's estimate stays within its own values.
      expect(Math.abs(r.json.total.ttft_p95_ms - exact)).toBeLessThanOrEqual(1000);
      expect(r.json.total.ttft_p95_ms).toBeLessThanOrEqual(70_000);
    });

    test("group_by provider and api_key: groups sorted, a missing value is the empty string", async () => {
      const q = "interval=day&start_date=2026-03-02&end_date=2026-03-09";
      const byProvider = await series(`${q}&group_by=provider`);
      expect(byProvider.json.series.map((s: { group: string }) => s.group)).toEqual(["alpha", "beta", "gamma"]);
      const beta = byProvider.json.series[1];
      expect(beta.requests[2]).toBe(1);
      expect(beta.input_tokens[3]).toBe(records[5]!.inputTokens); // the failed attempt's tokens stay with its provider
      expect(beta.requests[3]).toBe(0);
      const byKey = await series(`${q}&group_by=api_key`);
      expect(byKey.json.group_by).toBe("api_key");
      expect(byKey.json.series.map((s: { group: string }) => s.group)).toEqual(["", "k1", "k2"]);
      expect(byKey.json.series[0].errors[6]).toBe(1);
    });

    test("an empty range: no groups when grouping, one zero series without", async () => {
      const grouped = await series("interval=day&group_by=model&start_date=2025-01-01&end_date=2025-01-03");
      expect(grouped.json.series).toEqual([]);
      expect(grouped.json.total).toEqual({
        requests: 0,
        errors: 0,
        input_tokens: 0,
        output_tokens: 0,
        total_tokens: 0,
        cost_microdollars: 0,
        ttft_p50_ms: null,
        ttft_p95_ms: null,
      });
      const plain = await series("interval=day&start_date=2025-01-01&end_date=2025-01-03");
      expect(plain.json.series.length).toBe(1);
      expect(plain.json.series[0].requests).toEqual([0, 0, 0]);
      expect(plain.json.series[0].ttft_p95_ms).toEqual([null, null, null]);
    });

    test("default ranges: today and yesterday by hour, 30 days, 12 ISO weeks", async () => {
      const today = new Date().toISOString().slice(0, 10);
      const hour = await series("interval=hour");
      expect(hour.json.end_date).toBe(today);
      expect(hour.json.buckets.length).toBe(48);
      expect(hour.json.buckets[0]).toBe(new Date(Date.parse(`${today}T00:00:00Z`) - DAY).toISOString());
      const day = await series("");
      expect(day.json.interval).toBe("day");
      expect(day.json.buckets.length).toBe(30);
      const week = await series("interval=week");
      expect(week.json.buckets.length).toBe(12);
      expect(new Date(week.json.buckets[0]).getUTCDay()).toBe(1);
      expect(week.json.start_date).toBe(week.json.buckets[0].slice(0, 10));
      expect(Date.parse(week.json.buckets[11]) + 7 * DAY).toBeGreaterThan(Date.parse(`${today}T00:00:00Z`));
    });

    test("bad input is a 400 invalid_parameter naming the field", async () => {
      const cases: [string, string][] = [
        ["interval=minute", "interval"],
        ["group_by=day", "group_by"],
        ["start_date=2026-03-05&end_date=2026-03-04", "end_date"],
        ["start_date=2026-02-30", "start_date"],
        ["end_date=03/04/2026", "end_date"],
        ["interval=hour&start_date=2026-01-01&end_date=2026-02-11", "start_date"], // 42 days: 1,008 hours
        [`interval=day&start_date=${daysBefore("2026-03-04", 1000)}&end_date=2026-03-04`, "start_date"], // 1,001 days
      ];
      for (const [q, param] of cases) {
        const r = await series(q);
        expect(`${q} → ${r.status} ${r.json.error.code} ${r.json.error.param}`).toBe(`${q} → 400 invalid_parameter ${param}`);
        expect(r.json.error.type).toBe("invalid_request_error");
      }
      // Exactly 1,000 buckets is still answered.
      const edge = await series(`interval=day&start_date=${daysBefore("2026-03-04", 999)}&end_date=2026-03-04`);
      expect(edge.status).toBe(200);
      expect(edge.json.buckets.length).toBe(1000);
    });

    test("needs usage:read", async () => {
      const none = await x.call("GET", x.w("/usage/series"), { key: null });
      expect(none.status).toBe(401);
      const narrow = await x.call("GET", x.w("/usage/series"), { key: await x.keyWith(["keys:read"]) });
      expect(narrow.status).toBe(403);
      const ok = await x.call("GET", x.w("/usage/series"), { key: await x.keyWith(["usage:read"]) });
      expect(ok.status).toBe(200);
    });
  });
}
