// Request records for attempts: one per attempt, handed to the write-behind queue (never awaited).
import type { RequestRecord, RoutingDecision } from "../metering/request-record";
import { newId } from "../platform/ids";
import type { Usage } from "../providers/types";
import type { CallContext } from "./context";
import type { AttemptPlan } from "./attempt";
import type { Prepared } from "./prepare";
import { attemptWarnings } from "./outcome";

/** A record as handed to the queue: the usage's cache writes ride along for the metrics (request_records has no column for them). */
export type MeteredRecord = RequestRecord & { cacheWriteTokens?: number };

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

export interface AttemptOutcome {
  attempt: number;
  final: boolean;
  statusCode: number;
  success: boolean;
  latencyMs: number;
  ttftMs: number | null;
  usage: Usage;
  costMicrodollars: number;
  errorCode: string | null;
  /** The usage is the gateway's estimate: the stream settled without the upstream's usage (usage-estimate.ts). */
  usageEstimated?: boolean;
}

export function buildRecord(
  ctx: CallContext,
  prepared: Prepared,
  plan: AttemptPlan | null,
  o: AttemptOutcome,
  startedAt: number,
): MeteredRecord {
  return {
    recordId: newId(),
    requestId: ctx.requestId,
    attempt: o.attempt,
    workspaceId: ctx.workspaceId,
    createdAt: startedAt,
    endpoint: ctx.endpoint,
    model: prepared.requestedModel,
    modelCanonical: plan?.candidate.model.id ?? null,
    provider: plan?.candidate.provider.id ?? null,
    providerModelId: plan?.candidate.route.providerModelId ?? null,
    apiKeyId: ctx.apiKeyId,
    apiKeySource: plan?.apiKeySource ?? null,
    statusCode: o.statusCode,
    success: o.success,
    isFinalAttempt: o.final,
    latencyMs: o.latencyMs,
    ttftMs: o.ttftMs,
    inputTokens: o.usage.inputTokens,
    outputTokens: o.usage.outputTokens,
    cachedTokens: o.usage.cachedTokens,
    reasoningTokens: o.usage.reasoningTokens,
    cacheWriteTokens: o.usage.cacheWriteTokens,
    costMicrodollars: o.costMicrodollars,
    usageEstimated: o.usageEstimated === true,
    routingStrategy: prepared.strategy,
    errorCode: o.errorCode,
    traceId: ctx.traceId,
    userId: ctx.userId,
    tags: ctx.tags,
    customFields: ctx.customFields,
    chargeCredits: plan?.apiKeySource === "platform",
    routingDecision: plan ? routingDecision(prepared, plan) : null,
  };
}

/** The attempt's routing decision as routing_metadata reports it (outcome.ts); the writer rounds and serialises it. */
function routingDecision(prepared: Prepared, plan: AttemptPlan): RoutingDecision {
  const c = plan.candidate;
  return {
    ttftMsEstimate: c.estimate.ttftP50Ms,
    throughputTpsEstimate: c.estimate.tpsP50,
    exploration: c.explored === true,
    sticky: c.sticky === true,
    warnings: attemptWarnings(prepared, plan),
  };
}
