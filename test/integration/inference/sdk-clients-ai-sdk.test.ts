// The AI SDK (`ai` with @ai-sdk/openai chat and responses, @ai-sdk/anthropic, @ai-sdk/openai-compatible)
// over real HTTP against a listening gateway: generateText, streamText and a tool round trip per
// provider model, native and translated. The AI SDK validates every response and stream event with
// its own schemas, so a shape it does not accept fails here as an error part or a thrown error.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, isStepCount, jsonSchema, streamText, tool, type LanguageModel } from "ai";
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

interface Case {
  name: string;
  model: () => LanguageModel;
  /** The upstream call the gateway must make for it. */
  upstream: Partial<Pick<RecordedRequest, "provider" | "format" | "route">>;
}

const openai = () => createOpenAI({ baseURL: `${g.s.url}/v1`, apiKey: g.s.adminKey });
const anthropic = () => createAnthropic({ baseURL: `${g.s.url}/v1`, apiKey: g.s.adminKey });
const compatible = () => createOpenAICompatible({ name: "switchyard", baseURL: `${g.s.url}/v1`, apiKey: g.s.adminKey });

const CASES: Case[] = [
  { name: "@ai-sdk/openai .chat(acme/dual)", model: () => openai().chat("acme/dual"), upstream: { provider: "delta", route: "chat" } },
  {
    name: "@ai-sdk/openai .responses(acme/dual), native",
    model: () => openai().responses("acme/dual"),
    upstream: { provider: "delta", route: "responses" },
  },
  {
    name: "@ai-sdk/openai .responses(acme/openai-only), translated",
    model: () => openai().responses("acme/openai-only"),
    upstream: { provider: "alpha", route: "chat" },
  },
  {
    name: "@ai-sdk/anthropic (acme/anthropic-only), native",
    model: () => anthropic()("acme/anthropic-only"),
    upstream: { provider: "beta", format: "anthropic" },
  },
  {
    name: "@ai-sdk/anthropic (acme/chat), translated to gemini",
    model: () => anthropic()("acme/chat"),
    upstream: { provider: "gamma", format: "gemini" },
  },
  {
    name: "@ai-sdk/openai-compatible (acme/chat)",
    model: () => compatible().chatModel("acme/chat"),
    upstream: { provider: "gamma", format: "gemini" },
  },
];

// @ai-sdk/anthropic warns (a request-side compatibility warning) when a model ID it does not know
// comes without maxOutputTokens, so every call names one, as a gateway user would.
const LIMITS = { maxRetries: 0, maxOutputTokens: 256 };

const upstream = () => g.mock.requests.filter((r) => r.route !== "models").at(-1)!;

async function drain(result: { fullStream: AsyncIterable<{ type: string; text?: string; error?: unknown }> }) {
  let text = "";
  const errors: unknown[] = [];
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") text += part.text;
    if (part.type === "error") errors.push(part.error);
  }
  return { text, errors };
}

const weather = (seen: unknown[]) =>
  tool({
    description: "The weather in a city",
    inputSchema: jsonSchema<{ city: string }>(weatherParameters),
    execute: async (input) => {
      seen.push(input);
      return "22 C";
    },
  });

describe("AI SDK clients", () => {
  for (const c of CASES) {
    test(`${c.name}: generateText and streamText`, async () => {
      const r = await generateText({ model: c.model(), prompt: "hi", ...LIMITS });
      expect(r.text).toBe(MOCK_TEXT);
      expect(r.finishReason).toBe("stop");
      expect(r.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
      expect(r.warnings ?? []).toEqual([]);
      expect(upstream()).toMatchObject({ ...c.upstream, stream: false });

      const errors: unknown[] = [];
      const s = streamText({ model: c.model(), prompt: "hi", ...LIMITS, onError: ({ error }) => void errors.push(error) });
      const drained = await drain(s);
      expect([...drained.errors, ...errors]).toEqual([]);
      expect(drained.text).toBe(MOCK_TEXT);
      expect(await s.finishReason).toBe("stop");
      expect(await s.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
      expect(upstream()).toMatchObject({ ...c.upstream, stream: true });
      expect(complaints.lines).toEqual([]);
    });

    for (const streamed of [false, true]) {
      test(`${c.name}: a tool call round trips (${streamed ? "streamText" : "generateText"})`, async () => {
        g.mock.setScript(
          (r) => r.route !== "models",
          [
            { kind: "reply", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
            { kind: "reply", text: "Sunny in Paris." },
          ],
        );
        const seen: unknown[] = [];
        const call = { model: c.model(), prompt: "weather in Paris?", tools: { get_weather: weather(seen) }, ...LIMITS };
        let text: string;
        let steps: { finishReason: string }[];
        if (streamed) {
          const errors: unknown[] = [];
          const s = streamText({ ...call, stopWhen: isStepCount(2), onError: ({ error }) => void errors.push(error) });
          const drained = await drain(s);
          expect([...drained.errors, ...errors]).toEqual([]);
          text = drained.text;
          steps = await s.steps;
        } else {
          const r = await generateText({ ...call, stopWhen: isStepCount(2) });
          text = r.text;
          steps = r.steps;
        }
        expect(seen).toEqual([{ city: "Paris" }]);
        expect(steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
        expect(text).toContain("Sunny in Paris.");
        const follow = upstream();
        expect(follow).toMatchObject({ ...c.upstream, stream: streamed });
        expect(follow.rawBody).toContain("22 C");
        expect(complaints.lines).toEqual([]);
      });
    }
  }
});
