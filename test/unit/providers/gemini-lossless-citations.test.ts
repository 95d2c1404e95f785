// Gemini grounding and citations → url_citation annotations (convention 8), JSON and streamed, and the
// usage fields issue 55 names (thoughts as reasoning output, cached prompt tokens).
import { describe, expect, test } from "bun:test";
import { geminiAdapter as adapter } from "../../../src/providers/gemini/adapter";
import type { StreamEvent } from "../../../src/providers/types";
import { frameSse } from "../../support/mock-upstream-wire";
import { assemble, runStream, target } from "./stream-harness";

const t = target("gemini", { providerModelId: "gemini-2.5-flash" });

// "Grüße aus Köln." is 18 bytes in UTF-8 but 15 string indices: the offsets must be converted.
const TEXT = "Grüße aus Köln. Es regnet.";
const grounding = {
  groundingChunks: [
    { web: { uri: "https://a.example/koeln", title: "a.example" } },
    { web: { uri: "https://b.example/wetter", title: "b.example" } },
  ],
  groundingSupports: [
    { segment: { startIndex: 0, endIndex: 18, text: "Grüße aus Köln." }, groundingChunkIndices: [0] },
    { segment: { startIndex: 19, endIndex: 29, text: "Es regnet." }, groundingChunkIndices: [0, 1], confidenceScores: [0.9, 0.8] },
  ],
  webSearchQueries: ["wetter köln"],
};

function response(parts: unknown[], extra: Record<string, unknown> = {}, finished = true) {
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(finished ? { finishReason: "STOP" } : {}), ...extra }],
    usageMetadata: {
      promptTokenCount: 100,
      candidatesTokenCount: 20,
      thoughtsTokenCount: 30,
      cachedContentTokenCount: 64,
      totalTokenCount: 150,
    },
    modelVersion: "gemini-2.5-flash",
    responseId: "g1",
  };
}

const expected = [
  {
    type: "url_citation",
    url_citation: { url: "https://a.example/koeln", title: "a.example", start_index: 0, end_index: 15 },
    gemini: { groundingChunk: grounding.groundingChunks[0], groundingSupport: grounding.groundingSupports[0] },
  },
  {
    type: "url_citation",
    url_citation: { url: "https://a.example/koeln", title: "a.example", start_index: 16, end_index: 26 },
    gemini: { groundingChunk: grounding.groundingChunks[0], groundingSupport: grounding.groundingSupports[1] },
  },
  {
    type: "url_citation",
    url_citation: { url: "https://b.example/wetter", title: "b.example", start_index: 16, end_index: 26 },
    gemini: { groundingChunk: grounding.groundingChunks[1], groundingSupport: grounding.groundingSupports[1] },
  },
];

function annotationsOf(events: StreamEvent[]): unknown[] {
  return events.flatMap((e) => (e.type === "delta" && Array.isArray(e.delta.extra?.annotations) ? e.delta.extra.annotations : []));
}

describe("gemini citations", () => {
  test("grounding supports become url_citations at string indices into the content, one per source, Gemini's original kept", () => {
    const message = adapter.parseResponse(response([{ text: TEXT }], { groundingMetadata: grounding }), t).choices[0]!.message;
    expect(message.annotations).toEqual(expected);
    const a = message.annotations![1] as (typeof expected)[number];
    expect(TEXT.slice(a.url_citation.start_index, a.url_citation.end_index)).toBe("Es regnet.");
  });

  test("a support naming a part counts from that part's start; thought parts are not answer text", () => {
    const json = response([{ text: "thinking…", thought: true }, { text: "Köln: " }, { text: "Regen." }], {
      groundingMetadata: {
        groundingChunks: grounding.groundingChunks,
        groundingSupports: [{ segment: { partIndex: 2, startIndex: 0, endIndex: 6 }, groundingChunkIndices: [1] }],
      },
    });
    const message = adapter.parseResponse(json, t).choices[0]!.message;
    const cite = (message.annotations![0] as (typeof expected)[number]).url_citation;
    expect(message.content!.slice(cite.start_index, cite.end_index)).toBe("Regen.");
  });

  test("recitation citations (citationMetadata) become url_citations too; a source without a URI is skipped", () => {
    const source = { startIndex: 0, endIndex: 5, uri: "https://c.example/poem", license: "CC-BY" };
    const message = adapter.parseResponse(
      response([{ text: "Roses are red." }], { citationMetadata: { citationSources: [source, { startIndex: 1, endIndex: 2 }] } }),
      t,
    ).choices[0]!.message;
    expect(message.annotations).toEqual([
      {
        type: "url_citation",
        url_citation: { url: "https://c.example/poem", title: "", start_index: 0, end_index: 5 },
        gemini: { citationSource: source },
      },
    ]);
  });

  test("streams: the grounding of the last chunk comes as extra.annotations once, against the whole streamed text", async () => {
    const chunks = [
      response([{ text: "Grüße aus " }], {}, false),
      response([{ text: "Köln. Es regnet." }], { groundingMetadata: grounding }, false),
      response([], { groundingMetadata: grounding }),
    ];
    const events = await runStream(
      "gemini",
      chunks.map((c) => frameSse("gemini", JSON.stringify(c))),
      t,
    );
    expect(assemble(events).content).toBe(TEXT);
    expect(annotationsOf(events)).toEqual(expected);
  });

  test("an answer without grounding has no annotations", () => {
    expect(adapter.parseResponse(response([{ text: "Hi" }]), t).choices[0]!.message.annotations).toBeUndefined();
  });
});

describe("gemini usage", () => {
  test("thoughtsTokenCount is reasoning (part of the output), cachedContentTokenCount cached input, JSON and streamed alike", async () => {
    const usage = { inputTokens: 100, outputTokens: 50, cachedTokens: 64, cacheWriteTokens: 0, reasoningTokens: 30 };
    expect(adapter.parseResponse(response([{ text: "Hi" }]), t).usage).toEqual(usage);
    const events = await runStream("gemini", [frameSse("gemini", JSON.stringify(response([{ text: "Hi" }])))], t);
    expect(assemble(events).usage).toEqual([{ type: "usage", usage }]);
  });
});
