// One call's spans: the SERVER span (the client's call, parented by its traceparent) and a CLIENT span per
// upstream attempt under it. A span the sampler dropped records nothing: every method returns at once.
import { SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { UpstreamError, Usage } from "../../providers/types";
import type { AttemptPlan } from "../../inference/attempt";
import type { Prepared } from "../../inference/prepare";
import type { PipelineEvent, PipelineResult } from "../../inference/types";
import type { CallSpan } from "./types";
import { A, answerAttributes, contentOfOutput, contentOfRequest, maxTokensOf, providerName, resultAnswer, type Answer } from "./attributes";
import { ObservedEncoder } from "./observed-encoder";

export interface SpanHost {
  tracer: Tracer;
  recordContent: boolean;
  /** The upstream's host and port for a URL (remembered per base URL). */
  serverOf(url: string): { address: string; port: number };
}

/** What a stream's encoder saw: the answer's ids and finish reasons, its usage and how it ended. */
export interface StreamSeen {
  id?: string;
  model?: string;
  finishReasons: string[];
  usage?: Usage;
  /** The terminal event's kind; none when the client left before it (the attempt settled cancelled). */
  last: "done" | "failed" | null;
  errorCode?: string;
  /** The completion's text (with `record_content` only). */
  text: string;
}

function errorTypeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "internal_error";
}

function fail(span: Span, errorType: string): void {
  span.setAttribute(A.errorType, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
}

export class OtelCallSpan implements CallSpan {
  readonly traceId: string;
  private readonly recording: boolean;
  private readonly parent: Context;
  private attempt: Span | null = null;
  private attempts = 0;
  /** The latest attempt's provider (the served one, once the call answers). */
  private provider: string | null = null;
  private prep: Prepared | null = null;
  private ended = false;
  private seen: StreamSeen | null = null;

  constructor(
    private readonly host: SpanHost,
    private readonly server: Span,
    parent: Context,
    private readonly operation: string,
  ) {
    this.traceId = server.spanContext().traceId;
    this.recording = server.isRecording();
    this.parent = trace.setSpan(parent, server);
  }

  prepared(prepared: Prepared): void {
    if (!this.recording) return;
    this.prep = prepared;
    const model = prepared.requestedModel;
    this.server.updateName(`${this.operation} ${model}`);
    const attrs: Attributes = { [A.requestModel]: model, [A.strategy]: prepared.strategy };
    const max = maxTokensOf(prepared.request);
    if (max !== undefined) attrs[A.maxTokens] = max;
    if (this.host.recordContent) attrs[A.inputMessages] = contentOfRequest(prepared.request);
    this.server.setAttributes(attrs);
  }

  attemptStarted(plan: AttemptPlan, attempt: number): void {
    if (!this.recording) return;
    this.attempts = attempt;
    this.provider = providerName(plan.candidate.provider.id);
    const model = plan.candidate.route.providerModelId;
    const server = this.host.serverOf(plan.url);
    const attrs: Attributes = {
      [A.operation]: this.operation,
      [A.provider]: this.provider,
      [A.requestModel]: model,
      [A.serverAddress]: server.address,
      [A.serverPort]: server.port,
      [A.attempt]: attempt,
      [A.keySource]: plan.apiKeySource,
    };
    const max = this.prep ? maxTokensOf(this.prep.request) : undefined;
    if (max !== undefined) attrs[A.maxTokens] = max;
    this.attempt = this.host.tracer.startSpan(`${this.operation} ${model}`, { kind: SpanKind.CLIENT, attributes: attrs }, this.parent);
  }

  attemptFailed(error: UpstreamError, cancelled: boolean): void {
    const span = this.attempt;
    if (span === null) return;
    this.attempt = null;
    if (error.status > 0) span.setAttribute(A.httpStatus, error.status);
    fail(span, cancelled ? "cancelled" : error.code);
    span.end();
  }

  answered(value: PipelineResult): void {
    if (!this.recording) return;
    const answer = resultAnswer(value.result, value.routing.cost.microdollars);
    const content = this.host.recordContent
      ? contentOfOutput(value.result.choices.map((c) => ({ text: c.message.content ?? "", finishReason: c.finish_reason })))
      : undefined;
    this.end(answer, null, content);
  }

  observe(encoder: Transformer<PipelineEvent, string>): Transformer<PipelineEvent, string> {
    if (!this.recording) return encoder;
    this.seen = { finishReasons: [], last: null, text: "" };
    return new ObservedEncoder(encoder, this.seen, this.host.recordContent);
  }

  settled(costMicrodollars: number): void {
    if (!this.recording) return;
    // The stream writes its last event right after the attempt settles, in the same task: read it then.
    queueMicrotask(() => {
      const s = this.seen ?? { finishReasons: [], last: null, text: "" };
      const answer: Answer = { id: s.id, model: s.model, finishReasons: s.finishReasons, usage: s.usage, costMicrodollars };
      const errorType = s.last === "done" ? null : s.last === "failed" ? (s.errorCode ?? "provider_error") : "cancelled";
      const content = this.host.recordContent ? contentOfOutput([{ text: s.text, finishReason: s.finishReasons[0] ?? null }]) : undefined;
      this.end(answer, errorType, content);
    });
  }

  failed(err: unknown): void {
    if (!this.recording || this.ended) return;
    this.ended = true;
    const errorType = errorTypeOf(err);
    if (this.attempt !== null) {
      fail(this.attempt, errorType);
      this.attempt.end();
      this.attempt = null;
    }
    if (this.attempts > 0) this.server.setAttributes({ [A.attempt]: this.attempts, [A.provider]: this.provider! });
    fail(this.server, errorType);
    this.server.end();
  }

  /** The served attempt and the call end with the answer's attributes. */
  private end(answer: Answer, errorType: string | null, content: string | undefined): void {
    if (this.ended) return;
    this.ended = true;
    const attrs = answerAttributes(answer);
    const span = this.attempt;
    this.attempt = null;
    if (span !== null) {
      span.setAttributes(attrs);
      if (errorType !== null) fail(span, errorType);
      span.end();
    }
    attrs[A.attempt] = this.attempts;
    if (this.provider !== null) attrs[A.provider] = this.provider;
    if (content !== undefined) attrs[A.outputMessages] = content;
    this.server.setAttributes(attrs);
    if (errorType !== null) fail(this.server, errorType);
    this.server.end();
  }
}
