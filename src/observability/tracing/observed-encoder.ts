// A stream's encoder with the tracer looking on: each event the client's wire encodes is read for the
// span's attributes (the answer's id, model and finish reasons, the final usage, how it ended), then
// encoded as before. Plain content chunks bypass encoders (upstream-events.ts passThrough): they carry
// nothing the span needs, except the text itself, so with `record_content` the pass-through is off.
import type { PlainChoiceFramer } from "../../providers/types";
import type { PipelineEvent } from "../../inference/types";
import type { StreamSeen } from "./call-span";

type Encoder = Transformer<PipelineEvent, string> & Partial<PlainChoiceFramer>;

export class ObservedEncoder implements Transformer<PipelineEvent, string> {
  readonly plainFrame?: PlainChoiceFramer["plainFrame"];

  constructor(
    private readonly inner: Encoder,
    private readonly seen: StreamSeen,
    private readonly content: boolean,
  ) {
    if (!content && inner.plainFrame) this.plainFrame = () => inner.plainFrame!();
  }

  start(controller: TransformStreamDefaultController<string>): void | PromiseLike<void> {
    return this.inner.start?.(controller);
  }

  transform(ev: PipelineEvent, controller: TransformStreamDefaultController<string>): void | PromiseLike<void> {
    this.see(ev);
    if (this.inner.transform) return this.inner.transform(ev, controller);
    controller.enqueue(ev as unknown as string);
  }

  flush(controller: TransformStreamDefaultController<string>): void | PromiseLike<void> {
    return this.inner.flush?.(controller);
  }

  private see(ev: PipelineEvent): void {
    const seen = this.seen;
    if (ev.type === "delta") {
      if (seen.id === undefined && ev.id) seen.id = ev.id;
      if (seen.model === undefined && ev.model) seen.model = ev.model;
      if (ev.finishReason !== null && !seen.finishReasons.includes(ev.finishReason)) seen.finishReasons.push(ev.finishReason);
      if (this.content && ev.choiceIndex === 0 && typeof ev.delta.content === "string") seen.text += ev.delta.content;
    } else if (ev.type === "done") {
      seen.usage = ev.usage;
      seen.last = "done";
    } else if (ev.type === "failed") {
      seen.last = "failed";
      seen.errorCode = ev.error.code;
    }
  }
}
