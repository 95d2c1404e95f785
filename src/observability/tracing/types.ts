// What the pipeline sees of tracing: a Tracing that starts one span per call (present only when an OTLP
// endpoint is configured: the SDK is loaded then, otel.ts), and the call's span, which the attempt loop
// and the call report to. No SDK types here, so the off path never loads the SDK.
import type { UpstreamError } from "../../providers/types";
import type { AttemptPlan } from "../../inference/attempt";
import type { Prepared } from "../../inference/prepare";
import type { PipelineEvent, PipelineResult } from "../../inference/types";

export interface Tracing {
  /** The SERVER span of a call; a W3C `traceparent` among the client's headers is its parent. */
  startCall(headers: Headers | undefined, endpoint: string): CallSpan;
  /** Exports what is still batched and stops the exporter (on shutdown). */
  shutdown(): Promise<void>;
}

/** One call's SERVER span and its attempts' CLIENT spans. Every method ends or annotates; none throws. */
export interface CallSpan {
  /** The trace's ID (32 hex digits), for the request's log line. */
  readonly traceId: string;
  /** The call is planned: its model, strategy and request parameters are known. */
  prepared(prepared: Prepared): void;
  /** An upstream attempt begins (its CLIENT span, a child of the call's). */
  attemptStarted(plan: AttemptPlan, attempt: number): void;
  /** The current attempt failed; the loop may try another. */
  attemptFailed(error: UpstreamError, cancelled: boolean): void;
  /** A JSON call answered: its attempt and the call end. */
  answered(result: PipelineResult): void;
  /** A stream's encoder, watched for the answer's attributes (ids, finish reasons, usage, the last event). */
  observe(encoder: Transformer<PipelineEvent, string>): Transformer<PipelineEvent, string>;
  /** A stream's attempt settled (after its last event is written): its attempt and the call end. */
  settled(costMicrodollars: number): void;
  /** The call failed before an answer (refused, or every attempt failed): the call ends with the error. */
  failed(err: unknown): void;
}
