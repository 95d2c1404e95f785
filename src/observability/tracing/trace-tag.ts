// The trace ID of a call travels on its Request under a symbol (as the request ID does: http/edge.ts),
// for the request's log line. Set only when tracing is on.
const TRACE_ID = Symbol("switchyard.traceId");
type Tagged = { [TRACE_ID]?: string };

export function tagTraceId(request: object, traceId: string): void {
  (request as Tagged)[TRACE_ID] = traceId;
}

/** The call's trace ID, or undefined (tracing off, or not an inference call). */
export function traceIdOf(request: object): string | undefined {
  return (request as Tagged)[TRACE_ID];
}
