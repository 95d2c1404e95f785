// The cheapest JS proxy that does what a gateway must on every stream: it parses the request, reads the
// upstream SSE body chunk by chunk, parses every event's JSON and re-serialises it (with one field
// changed) into a "direct" response stream, in any of the bench's dialects (the event's name kept).
// `bench/floor.ts` runs it beside the bare proxy and Switchyard to show what reading each event in
// JavaScript costs before any gateway work (keys, routing, limits, metering, records).
// Env: PORT (0 = any), UPSTREAM, CLIENT = fetch | sockets (Switchyard's own HTTP/1.1 client,
// src/platform/tuning/http1/client.ts), BURN_US = a busy loop of that many µs per request (floor.ts --burn:
// what a fixed amount of JS per request costs the whole process on each client), RAW=1: each network read
// of the body is written on as it came, no event read (floor.ts --raw: the floor of any proxy that
// handles a stream's chunks in JavaScript at all). Prints {"port":N}.
import { createParser } from "eventsource-parser";
import { createHttp1Client } from "../src/platform/tuning/http1/client";

const upstream = process.env.UPSTREAM ?? "http://127.0.0.1:9000";
const send = process.env.CLIENT === "sockets" ? createHttp1Client().fetch : (url: string, init: RequestInit) => fetch(url, init);
const STREAMING = { stream: true };
const BURN_MS = Number(process.env.BURN_US ?? 0) / 1000;
const RAW = process.env.RAW === "1";

/** Bun's controller for `type: "direct"` streams, as the gateway's committed stream uses it. */
interface DirectController {
  write(chunk: string | Uint8Array): number | Promise<number>;
  close(): void;
}

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  idleTimeout: 0,
  async fetch(req) {
    const body = (await req.json()) as { stream?: boolean };
    if (BURN_MS > 0) for (const end = performance.now() + BURN_MS; performance.now() < end;);
    const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    const res = await send(upstream + new URL(req.url).pathname, init);
    if (!body.stream) return Response.json(await res.json());
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const source = {
      type: "direct",
      async pull(sink: DirectController) {
        if (RAW) {
          for (let r = await reader.read(); !r.done; r = await reader.read()) sink.write(r.value);
          return sink.close();
        }
        const parser = createParser({
          onEvent: (e) => {
            if (e.data === "[DONE]") return void sink.write("data: [DONE]\n\n");
            const chunk = JSON.parse(e.data) as { model: string };
            chunk.model = `minimal/${chunk.model}`;
            // Messages and Responses events are named (`event:`); chat chunks are not.
            sink.write(`${e.event ? `event: ${e.event}\n` : ""}data: ${JSON.stringify(chunk)}\n\n`);
          },
        });
        for (let r = await reader.read(); !r.done; r = await reader.read()) parser.feed(decoder.decode(r.value, STREAMING));
        sink.close();
      },
    };
    return new Response(new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>), {
      headers: { "content-type": "text/event-stream" },
    });
  },
});
process.stdout.write(JSON.stringify({ port: server.port }) + "\n");
process.on("SIGTERM", () => {
  void server.stop(true);
  process.exit(0);
});
