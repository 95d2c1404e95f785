// The client's Responses stream, watched for its terminal event (response.completed or
// response.incomplete) so that the response can be kept as the client received it. The wrapped encoder
// is unchanged: every chunk goes on as it came, and the only work per chunk is two prefix tests; the
// terminal event is handed on (and parsed) after it was written, off the stream's path.
import type { PipelineEvent } from "../../types";
import type { PlainChoiceFramer } from "../../../providers/types";

type Controller = TransformStreamDefaultController<string>;

const COMPLETED = "event: response.completed\n";
const INCOMPLETE = "event: response.incomplete\n";

class CapturingEncoder implements Transformer<PipelineEvent, string>, Controller {
  private target: Controller | null = null;
  private captured = false;

  constructor(
    private readonly inner: Transformer<PipelineEvent, string> & Partial<PlainChoiceFramer>,
    private readonly onResponse: (responseText: string, response: unknown) => void,
  ) {}

  get desiredSize(): number | null {
    return this.target?.desiredSize ?? 1;
  }

  start(c: Controller): void {
    this.target = c;
    void this.inner.start?.(this);
  }

  transform(ev: PipelineEvent, c: Controller): void {
    this.target = c;
    void this.inner.transform?.(ev, this);
  }

  flush(c: Controller): void {
    this.target = c;
    void this.inner.flush?.(this);
  }

  plainFrame(): { head: Uint8Array; tail: Uint8Array } | null {
    return this.inner.plainFrame?.() ?? null;
  }

  // The controller the wrapped encoder writes to.
  enqueue(chunk?: string): void {
    this.target!.enqueue(chunk);
    if (this.captured || chunk === undefined || !(chunk.startsWith(COMPLETED) || chunk.startsWith(INCOMPLETE))) return;
    this.captured = true;
    // After the write: the parse and the queueing never delay the event on its way to the client.
    setImmediate(() => {
      const response = responseOfEvent(chunk);
      if (response !== null) this.onResponse(JSON.stringify(response), response);
    });
  }

  error(reason?: unknown): void {
    this.target!.error(reason);
  }

  terminate(): void {
    this.target!.terminate();
  }
}

/** The `response` of a terminal event's data line; null when it has none. */
export function responseOfEvent(event: string): object | null {
  const at = event.indexOf("\ndata: ");
  if (at < 0) return null;
  try {
    const data = JSON.parse(event.slice(at + 7)) as { response?: unknown };
    return typeof data.response === "object" && data.response !== null ? data.response : null;
  } catch {
    return null;
  }
}

/** The encoder, its terminal response handed to `onResponse` (once, after it was written). */
export function capturingEncoder(
  inner: Transformer<PipelineEvent, string>,
  onResponse: (responseText: string, response: unknown) => void,
): Transformer<PipelineEvent, string> {
  const wrapped = new CapturingEncoder(inner, onResponse);
  // Keep the pass-through's test (`encoder.plainFrame` present) as the wrapped encoder answers it.
  if (!(inner as Partial<PlainChoiceFramer>).plainFrame) (wrapped as { plainFrame?: unknown }).plainFrame = undefined;
  return wrapped;
}
