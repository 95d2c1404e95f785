// LangChain's ChatOpenAI (@langchain/openai, built on the official openai client) over real HTTP
// against a listening gateway: invoke, stream and a bound tool, on chat completions and, with
// useResponsesApi, on /v1/responses both native (acme/dual) and translated (acme/openai-only).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { AIMessageChunk } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { startGateway, type TestGateway } from "../../support/gateway";
import type { RecordedRequest } from "../../support/mock-upstream";
import { MOCK_TEXT, recordClientComplaints, weatherParameters, type ClientComplaints } from "../../support/sdk-clients";

let g: TestGateway;
let complaints: ClientComplaints;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());
beforeEach(() => {
  g.mock.reset();
  complaints = recordClientComplaints();
});
afterEach(() => complaints.restore());

const CASES: { name: string; model: string; useResponsesApi: boolean; upstream: Partial<RecordedRequest> }[] = [
  { name: "chat completions, acme/dual", model: "acme/dual", useResponsesApi: false, upstream: { provider: "delta", route: "chat" } },
  { name: "responses, acme/dual (native)", model: "acme/dual", useResponsesApi: true, upstream: { provider: "delta", route: "responses" } },
  {
    name: "responses, acme/openai-only (translated)",
    model: "acme/openai-only",
    useResponsesApi: true,
    upstream: { provider: "alpha", route: "chat" },
  },
];

const chat = (model: string, useResponsesApi: boolean) =>
  new ChatOpenAI({ model, apiKey: g.s.adminKey, configuration: { baseURL: `${g.s.url}/v1` }, maxRetries: 0, useResponsesApi });

const upstream = () => g.mock.requests.at(-1)!;

describe("LangChain ChatOpenAI", () => {
  for (const c of CASES) {
    test(`${c.name}: invoke and stream`, async () => {
      const m = await chat(c.model, c.useResponsesApi).invoke("hi");
      expect(m.text).toBe(MOCK_TEXT);
      expect(m.usage_metadata).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
      expect(upstream()).toMatchObject({ ...c.upstream, stream: false });

      let whole: AIMessageChunk | undefined;
      const pieces: string[] = [];
      for await (const chunk of await chat(c.model, c.useResponsesApi).stream("hi")) {
        pieces.push(chunk.text);
        whole = whole ? whole.concat(chunk) : chunk;
      }
      expect(pieces.join("")).toBe(MOCK_TEXT);
      expect(whole?.usage_metadata).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
      expect(upstream()).toMatchObject({ ...c.upstream, stream: true });
      expect(complaints.lines).toEqual([]);
    });

    test(`${c.name}: a bound tool's call arrives parsed, JSON and stream`, async () => {
      g.mock.setScript({ route: c.upstream.route }, { kind: "reply", toolCalls: [{ name: "get_weather", arguments: { city: "Lima" } }] });
      const tool = { type: "function" as const, function: { name: "get_weather", parameters: weatherParameters } };
      const model = chat(c.model, c.useResponsesApi).bindTools([tool]);
      const m = await model.invoke("weather in Lima?");
      expect(m.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Lima" } })]);
      let whole: AIMessageChunk | undefined;
      for await (const chunk of await model.stream("weather in Lima?")) whole = whole ? whole.concat(chunk) : chunk;
      expect(whole?.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Lima" } })]);
      expect(upstream()).toMatchObject({ ...c.upstream, stream: true });
      expect(complaints.lines).toEqual([]);
    });
  }
});
