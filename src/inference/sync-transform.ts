// Drives a stream Transformer (the {start, transform, flush} object a TransformStream is built from)
// synchronously. The streaming hot path runs decode → translate → encode for one network chunk in one
// pass instead of hopping through a TransformStream (and its promises) per stage per event; the
// transformers themselves stay the same objects the TransformStream forms are made of.

export class SyncTransform<I, O> {
  private out: O[] = [];
  /** What start() produced is handed out with the first push (or end). */
  private fresh = true;
  private readonly controller: TransformStreamDefaultController<O>;

  constructor(private readonly transformer: Transformer<I, O>) {
    const out = this.out;
    this.controller = {
      desiredSize: 1,
      enqueue: (chunk?: O) => void out.push(chunk as O),
      error: (reason?: unknown) => {
        throw reason instanceof Error ? reason : new Error(String(reason));
      },
      terminate: () => {},
    };
    transformer.start?.(this.controller);
  }

  /** Feeds one input; returns what the transformer produced (valid until the next call). */
  push(input: I): O[] {
    this.reset();
    if (this.transformer.transform) this.transformer.transform(input, this.controller);
    else this.controller.enqueue(input as unknown as O);
    return this.out;
  }

  /** Ends the input; returns what flush produced. */
  end(): O[] {
    this.reset();
    this.transformer.flush?.(this.controller);
    return this.out;
  }

  private reset(): void {
    if (this.fresh) this.fresh = false;
    else this.out.length = 0;
  }
}
