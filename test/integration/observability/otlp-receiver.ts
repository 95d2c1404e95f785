// A loopback OTLP/HTTP receiver for tracing tests: accepts POST /v1/traces in http/json or http/protobuf
// and keeps each export as it came (its content type and bytes), with the JSON ones' spans flattened.

export interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status?: { code?: number; message?: string };
  events?: unknown[];
  resource: Record<string, unknown>;
}

export interface Export {
  contentType: string;
  headers: Headers;
  body: Uint8Array;
}

export interface OtlpReceiver {
  url: string;
  exports: Export[];
  /** Every span of the JSON exports so far. */
  spans(): ExportedSpan[];
  /** Waits (polling, with a deadline) until `ready` holds for the spans received. */
  waitFor(ready: (spans: ExportedSpan[]) => boolean, ms?: number): Promise<ExportedSpan[]>;
  stop(): Promise<void>;
}

export const SPAN_KIND = { SERVER: 2, CLIENT: 3 } as const;

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributes(list: { key: string; value: OtlpValue }[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of list ?? []) out[a.key] = valueOf(a.value);
  return out;
}

type JsonExport = {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: { spans?: (Omit<ExportedSpan, "attributes" | "resource"> & { attributes?: { key: string; value: OtlpValue }[] })[] }[];
  }[];
};

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: Export[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/traces") return new Response("not found", { status: 404 });
      exports.push({
        contentType: req.headers.get("content-type") ?? "",
        headers: req.headers,
        body: new Uint8Array(await req.arrayBuffer()),
      });
      // An empty ExportTraceServiceResponse: success, in either encoding.
      const json = (req.headers.get("content-type") ?? "").includes("json");
      return json
        ? new Response("{}", { headers: { "content-type": "application/json" } })
        : new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
  const spans = (): ExportedSpan[] => {
    const out: ExportedSpan[] = [];
    for (const e of exports) {
      if (!e.contentType.includes("json")) continue;
      const doc = JSON.parse(new TextDecoder().decode(e.body)) as JsonExport;
      for (const rs of doc.resourceSpans ?? []) {
        const resource = attributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? []) out.push({ ...s, attributes: attributes(s.attributes), resource });
      }
    }
    return out;
  };
  return {
    url: `http://127.0.0.1:${server.port}`,
    exports,
    spans,
    async waitFor(ready, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const got = spans();
        if (ready(got)) return got;
        if (Date.now() > deadline)
          throw new Error(`OTLP receiver: spans not as expected after ${ms} ms: ${JSON.stringify(got.map((s) => s.name))}`);
        await Bun.sleep(20);
      }
    },
    async stop() {
      await server.stop(true);
    },
  };
}
