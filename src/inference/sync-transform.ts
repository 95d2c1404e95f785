// Drives a stream Transformer (the {start, transform, flush} object a TransformStream is built from)
// synchronously. The streaming hot path runs decode → translate → encode for one network chunk in one
// pass instead of hopping through a TransformStream (and its promises) per stage per event; the
// transformers themselves stay the same objects the TransformStream forms are made of.
//
// The driver is its own controller (enqueue collects into `out`): no controller object and three
// closures per instance, of which a stream makes two (bench/NOTES.md, 2026-11-28: closures per stream).

export class SyncTransform<I, O> implements TransformStreamDefaultController<O> {
  private readonly out: O[] = [];
  /** What start() produced is handed out with the first push (or end). */
  private fresh = true;
  readonly desiredSize = 1;

  constructor(private readonly transformer: Transformer<I, O>) {
    transformer.start?.(this);
  }

  /** Feeds one input; returns what the transformer produced (valid until the next call). */
  push(input: I): O[] {
    this.reset();
    if (this.transformer.transform) this.transformer.transform(input, this);
    else this.out.push(input as unknown as O);
    return this.out;
  }

  /** Ends the input; returns what flush produced. */
  end(): O[] {
    this.reset();
    this.transformer.flush?.(this);
    return this.out;
  }

  // The controller, as the transformer sees it.
  enqueue(chunk?: O): void {
    this.out.push(chunk as O);
  }

  error(reason?: unknown): never {
    throw reason instanceof Error ? reason : new Error(String(reason));
  }

  terminate(): void {}

  private reset(): void {
    if (this.fresh) this.fresh = false;
    else this.out.length = 0;
  }
}
