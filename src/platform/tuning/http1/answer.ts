// The socket client's answers (UpstreamAnswer): plain objects over the parsed head, with no native
// Response or Headers made unless asked for. A body that came whole with its head is kept as bytes; one
// that streams keeps its pieces pending until a tap (or the Response's reader) takes them.
import type { BodyTap, UpstreamAnswer } from "../../upstream-answer";
import type { ResponseHead } from "./response-parser";
import { concatAll, respond, type Bytes } from "./response";

const decoder = new TextDecoder();

/**
 * `make()`'s answer for `head`, or the error fetch would have thrown for it: a status a Response cannot
 * carry (101 Switching Protocols) or a content coding that cannot be decoded.
 */
export function answerFor(head: ResponseHead, make: () => UpstreamAnswer): UpstreamAnswer | Error {
  if (head.status < 200 || head.status > 599) return new RangeError(`unsupported upstream status ${head.status}`);
  try {
    return make();
  } catch (err) {
    return err instanceof Error ? err : new TypeError(String(err));
  }
}

abstract class HeadAnswer {
  private built: Headers | null = null;
  constructor(protected readonly head: ResponseHead) {}
  get status(): number {
    return this.head.status;
  }
  get ok(): boolean {
    return this.head.status >= 200 && this.head.status < 300;
  }
  get headers(): Headers {
    return (this.built ??= new Headers(this.head.headers));
  }
}

/** A body that arrived whole with its head (or none: HEAD, 204, 304). */
export class WholeAnswer extends HeadAnswer implements UpstreamAnswer {
  constructor(
    head: ResponseHead,
    private readonly bytes: Bytes | null,
  ) {
    super(head);
  }
  text(): Promise<string> {
    return Promise.resolve(this.bytes ? decoder.decode(this.bytes) : "");
  }
  tap(tap: BodyTap): () => void {
    if (this.bytes) tap.piece(this.bytes, 0, this.bytes.length);
    tap.end();
    return () => {};
  }
  response(): Response {
    return respond(this.head, this.bytes);
  }
}

/** A piece's range as an array of its own: the delivery itself when it is all body, else a copy. */
export const owned = (b: Uint8Array, start: number, end: number): Bytes =>
  (start === 0 && end === b.length ? b : b.slice(start, end)) as Bytes;

/** Where a streaming body's pieces go: pending until someone takes them, then to that one's tap. */
export interface BodyFeed {
  /** Pieces nobody has taken yet (null once a tap has). */
  pending: Bytes[] | null;
  tap: BodyTap | null;
  /** How the body ended while its pieces were still pending (told to the tap that takes them). */
  over: "end" | { error: unknown } | null;
}

/** A body that streams after its head: the client feeds `feed`; `cancel` fails the exchange if still on. */
export class StreamedAnswer extends HeadAnswer implements UpstreamAnswer {
  constructor(
    head: ResponseHead,
    private readonly feed: BodyFeed,
    private readonly cancel: () => void,
  ) {
    super(head);
  }

  tap(tap: BodyTap): () => void {
    const feed = this.feed;
    const pending = feed.pending;
    if (!pending) throw new TypeError("the upstream body is already being read");
    feed.pending = null;
    feed.tap = tap;
    for (const piece of pending) tap.piece(piece, 0, piece.length);
    // Ended or failed before the tap came: it hears so now, after its pieces.
    if (feed.over === "end") tap.end();
    else if (feed.over) tap.error(feed.over.error);
    return this.cancel;
  }

  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      const pieces: Bytes[] = [];
      this.tap({
        piece: (b, start, end) => void pieces.push(owned(b, start, end)),
        end: () => resolve(decoder.decode(concatAll(pieces))),
        error: reject,
      });
    });
  }

  /** The pieces as a ReadableStream (for a Response); cancelling it cancels the request. */
  stream(): ReadableStream<Bytes> {
    return new ReadableStream<Bytes>({
      start: (controller) => {
        // The stream may have been cancelled by its reader: then these throw, and there is no one to tell.
        this.tap({
          piece: (b, start, end) => quietly(() => controller.enqueue(owned(b, start, end))),
          end: () => quietly(() => controller.close()),
          error: (err) => quietly(() => controller.error(err)),
        });
      },
      cancel: () => this.cancel(),
    });
  }

  response(): Response {
    return respond(this.head, this.stream());
  }
}

function quietly(f: () => void): void {
  try {
    f();
  } catch {
    // Closed or cancelled already.
  }
}
