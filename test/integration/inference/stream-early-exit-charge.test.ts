// Issue 52 item 2: a stream that ends early (the client leaves after content, the upstream stalls or
// fails mid-way) is charged what it consumed: the upstream's own usage when it comes within the drain
// bound, else an estimate marked usage_estimated; credits and budgets are debited with that cost.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import { testDatabaseKinds } from "../../support/databases";
import { eventually } from "../../support/spawn";
import { replySse } from "../../support/mock-upstream-wire";
import { responsesReplySse } from "../../support/mock-upstream-responses";

const TEXT = "one two three four five six seven eight nine ten eleven twelve";
const PROMPT = "p".repeat(400);

interface Dialect {
  name: string;
  path: string;
  provider: string;
  body: Record<string, unknown>;
  /** The upstream's wire events for TEXT: the first `lead` carry two content deltas, nothing after them. */
  events(): string[];
  lead: number;
  /** A mid-stream error event in the upstream's own wire format. */
  failure: string;
}

const DIALECTS: Dialect[] = [
  {
    name: "chat completions",
    path: "/v1/chat/completions",
    provider: "alpha",
    body: { model: "acme/openai-only", stream: true, messages: [{ role: "user", content: PROMPT }] },
    events: () => replySse("openai", { text: TEXT }, "alpha-solo"),
    lead: 3, // role chunk, "one", " two"
    failure: 'data: {"error":{"message":"upstream fell over","code":502}}\n\n',
  },
  {
    name: "responses",
    path: "/v1/responses",
    provider: "delta",
    body: { model: "acme/dual", stream: true, input: PROMPT },
    events: () => responsesReplySse({ text: TEXT }, "delta-dual"),
    lead: 6, // created, in_progress, item added, part added, "one", " two"
    failure: 'event: error\ndata: {"type":"error","code":"server_error","message":"upstream fell over","sequence_number":90}\n\n',
  },
  {
    name: "messages",
    path: "/v1/messages",
    provider: "beta",
    body: { model: "acme/anthropic-only", stream: true, max_tokens: 100, messages: [{ role: "user", content: PROMPT }] },
    events: () => replySse("anthropic", { text: TEXT }, "claude-solo"),
    lead: 5, // message_start, content_block_start, ping, "one", " two"
    failure: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"upstream fell over"}}\n\n',
  },
];

type Row = {
  requestId: string;
  errorCode: string | null;
  statusCode: number;
  inputTokens: number;
  outputTokens: number;
  costMicrodollars: number;
  usageEstimated: boolean;
  isFinalAttempt: boolean;
};

for (const kind of await testDatabaseKinds()) {
  describe(`a stream that ends early is charged what it consumed, on ${kind}`, () => {
    let g: TestGateway;
    let budgetId = "";
    beforeAll(async () => {
      g = await startGateway({ db: kind });
      g.s.deps.inference.keepAliveMs = 100;
      await g.s.deps.credits.add(g.s.workspaceId, 100_000_000, "test_top_up");
      const b = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets`, {
        method: "POST",
        body: JSON.stringify({ scope: "workspace", period: "daily", limit: 1000, enforce: false }),
      });
      expect(b.status).toBe(201);
      budgetId = ((await b.json()) as { budget_id: string }).budget_id;
    });
    afterAll(() => g.stop());

    /** The final record of a request once the writer has it in the database (flushing until it appears). */
    async function recordOf(requestId: string): Promise<Row> {
      let row: Row | undefined;
      await eventually(async () => {
        await g.s.deps.records.flush();
        const rows = (await g.s.deps.db.orm.select().from(g.s.deps.db.t.requestRecords)) as Row[];
        row = rows.find((x) => x.requestId === requestId && x.isFinalAttempt);
        return row !== undefined;
      }, 8_000);
      return row!;
    }

    const balance = async () =>
      ((await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/billing/balance`)).json()) as { balance_microdollars: number })
        .balance_microdollars;
    const budgetSpend = async () => {
      const list = (await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets`)).json()) as {
        budgets: { budget_id: string; spend: number }[];
      };
      return Math.round(list.budgets.find((b) => b.budget_id === budgetId)!.spend * 1_000_000);
    };

    /** Asserts the record's cost left the credit balance and counts in the budget's spend. */
    async function expectDebited(row: Row, before: { credits: number; spend: number }) {
      expect(row.costMicrodollars).toBeGreaterThan(0);
      expect(await eventually(async () => (await balance()) === before.credits - row.costMicrodollars, 3_000)).toBe(true);
      expect(await budgetSpend()).toBe(before.spend + row.costMicrodollars);
      const api = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/requests/${row.requestId}`);
      const detail = (await api.json()) as { usage_estimated: boolean; cost_microdollars: number };
      expect(detail).toMatchObject({ usage_estimated: row.usageEstimated, cost_microdollars: row.costMicrodollars });
    }

    const snapshot = async () => ({ credits: await balance(), spend: await budgetSpend() });

    /** Starts the call and reads the client's side until `seen` content has arrived. */
    async function startAndRead(d: Dialect, requestId: string, signal?: AbortSignal) {
      const r = await g.s.fetch(d.path, { method: "POST", body: JSON.stringify(d.body), signal, headers: { "x-request-id": requestId } });
      expect(r.status).toBe(200);
      const reader = r.body!.getReader();
      const dec = new TextDecoder();
      let text = "";
      while (!text.includes("two")) {
        const { done, value } = await reader.read();
        if (done) break;
        text += dec.decode(value);
      }
      return { reader, text };
    }

    for (const d of DIALECTS) {
      describe(d.name, () => {
        test("a client that disconnects after content: the upstream is read on to its usage chunk, and the record has that real usage and its cost", async () => {
          delete g.s.deps.inference.clientGoneDrainMs; // the default bound (seconds) outlasts this upstream
          const id = `${d.provider}-left-${kind}`;
          g.mock.setScript({ provider: d.provider }, { kind: "reply", text: TEXT, gapMs: 30, usage: { input: 1234, output: 567 } });
          const before = await snapshot();
          const ac = new AbortController();
          const { text } = await startAndRead(d, id, ac.signal);
          expect(text).toContain("two");
          ac.abort();
          const row = await recordOf(id);
          expect(row).toMatchObject({
            errorCode: "cancelled",
            statusCode: 499,
            inputTokens: 1234,
            outputTokens: 567,
            usageEstimated: false,
          });
          await expectDebited(row, before);
          g.mock.reset();
        });

        test("an upstream that stalls after the client left is cancelled once the drain bound passes, and the record is charged an estimate (usage_estimated)", async () => {
          const provider = g.s.deps.catalog.providers.get(d.provider)! as { idleTimeoutMs: number };
          const savedIdle = provider.idleTimeoutMs;
          provider.idleTimeoutMs = 30_000; // only the drain bound can end this stream within the test
          g.s.deps.inference.clientGoneDrainMs = 200;
          try {
            const id = `${d.provider}-stall-${kind}`;
            const lead = d.events().slice(0, d.lead);
            g.mock.setScript({ provider: d.provider }, { kind: "sse", chunks: lead, gapMs: 5, hangAfterChunks: lead.length });
            const before = await snapshot();
            const ac = new AbortController();
            await startAndRead(d, id, ac.signal);
            ac.abort();
            expect(await eventually(() => g.mock.requests.at(-1)?.aborted === true, 5_000)).toBe(true);
            const row = await recordOf(id);
            expect(row).toMatchObject({ errorCode: "cancelled", statusCode: 499, usageEstimated: true });
            // 404+ characters of prompt at four a token; two content deltas, at least a token each.
            expect(row.inputTokens).toBeGreaterThanOrEqual(100);
            expect(row.inputTokens).toBeLessThan(130);
            expect(row.outputTokens).toBeGreaterThanOrEqual(2);
            await expectDebited(row, before);
          } finally {
            provider.idleTimeoutMs = savedIdle;
            delete g.s.deps.inference.clientGoneDrainMs;
            g.mock.reset();
          }
        });

        test("an upstream that fails mid-stream after content is charged an estimate (usage_estimated) and debited", async () => {
          const id = `${d.provider}-fail-${kind}`;
          g.mock.setScript({ provider: d.provider }, { kind: "sse", chunks: [...d.events().slice(0, d.lead), d.failure], gapMs: 5 });
          const before = await snapshot();
          const { reader, text } = await startAndRead(d, id);
          let rest = text;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            rest += new TextDecoder().decode(value);
          }
          expect(rest).toContain("upstream fell over");
          const row = await recordOf(id);
          expect(row.usageEstimated).toBe(true);
          expect(row.errorCode).not.toBeNull();
          expect(row.inputTokens).toBeGreaterThanOrEqual(100);
          expect(row.outputTokens).toBeGreaterThanOrEqual(2);
          await expectDebited(row, before);
          g.mock.reset();
        });
      });
    }

    test("a stream that times out after content is charged an estimate (usage_estimated)", async () => {
      const d = DIALECTS[0]!;
      const id = `timeout-${kind}`;
      const lead = d.events().slice(0, d.lead);
      // The test gateway's idle limit is 1 s: the stream goes silent after its lead and times out.
      g.mock.setScript({ provider: d.provider }, { kind: "sse", chunks: lead, gapMs: 5, hangAfterChunks: lead.length });
      const before = await snapshot();
      const r = await g.s.fetch(d.path, { method: "POST", body: JSON.stringify(d.body), headers: { "x-request-id": id } });
      expect(await r.text()).toContain("went silent mid-stream");
      const row = await recordOf(id);
      expect(row).toMatchObject({ errorCode: "provider_timeout", usageEstimated: true });
      expect(row.outputTokens).toBeGreaterThanOrEqual(2);
      await expectDebited(row, before);
      g.mock.reset();
    });
  });
}
