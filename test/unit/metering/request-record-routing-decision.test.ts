// toRow serialises a record's routing decision with routing_metadata's names and rounding, and leaves the
// column null when there is none (no route planned, or a record built before the field existed).
import { describe, expect, test } from "bun:test";
import { toRow, type RequestRecord } from "../../../src/metering/request-record";

const base: RequestRecord = {
  recordId: "rec_1",
  requestId: "req_1",
  attempt: 1,
  workspaceId: "ws_1",
  createdAt: 0,
  endpoint: "chat_completions",
  model: "m",
  modelCanonical: "m",
  provider: "p",
  providerModelId: "pm",
  apiKeyId: null,
  apiKeySource: "platform",
  statusCode: 200,
  success: true,
  isFinalAttempt: true,
  latencyMs: 1,
  ttftMs: null,
  inputTokens: 0,
  outputTokens: 0,
  cachedTokens: 0,
  reasoningTokens: 0,
  costMicrodollars: 0,
  routingStrategy: "cost",
  errorCode: null,
  traceId: null,
  userId: null,
  tags: null,
  customFields: null,
  chargeCredits: false,
};

describe("toRow: routing_decision", () => {
  test("rounds the estimates as routing_metadata does and keeps each warning's type, code and message", () => {
    const warning = { type: "unsupported_parameter" as const, code: "seed", message: '"seed" was dropped.' };
    const row = toRow({
      ...base,
      routingDecision: {
        ttftMsEstimate: 412.6,
        throughputTpsEstimate: 87.349,
        exploration: true,
        sticky: false,
        warnings: [{ ...warning, extra: "not stored" } as typeof warning],
      },
    });
    expect(JSON.parse(row.routingDecision!)).toEqual({
      ttft_ms_estimate: 413,
      throughput_tps_estimate: 87.3,
      exploration: true,
      sticky: false,
      warnings: [warning],
    });
  });

  test("null when the record has no decision, absent or null", () => {
    expect(toRow(base).routingDecision).toBeNull();
    expect(toRow({ ...base, routingDecision: null }).routingDecision).toBeNull();
  });
});
