// An upstream request's cancel switch. AbortController is the Web's, but each one is a native
// EventTarget, and the socket client added and removed an abort listener on it for every request: with
// the controller, ~3 % of a JSON request's CPU in the profile (bench/profile.ts), where the socket client
// needs one callback. Who aborts (the AbortSweeper's deadlines, a stream's reader) calls abort(); the
// socket client hooks onAbort; fetch, the fallback client, gets a real AbortSignal made on demand.
// Measured side by side (bench/ab.ts --together, JSON, 32 connections, three gateways per side): 0.93×
// the CPU per request of the AbortController version (quartiles 0.91–1.02, every new process below every old).
export class UpstreamAbort {
  aborted = false;
  reason: unknown = undefined;
  private hook: ((reason: unknown) => void) | null = null;
  private controller: AbortController | null = null;

  abort(reason: unknown = new DOMException("The operation was aborted.", "AbortError")): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const hook = this.hook;
    this.hook = null;
    hook?.(reason);
    this.controller?.abort(reason);
  }

  /** The callback run once when aborted (one at a time: it replaces any earlier); null detaches it. */
  onAbort(hook: ((reason: unknown) => void) | null): void {
    this.hook = hook;
  }

  /** An AbortSignal that follows this switch, for fetch and other Web APIs. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}
