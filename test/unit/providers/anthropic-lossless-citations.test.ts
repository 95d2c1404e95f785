// Issue 55, documents and citations on the Anthropic wire: chat file parts → document blocks; an answer's
// citations → annotations over the cited text's span (JSON and streamed), the original kept under `anthropic`.
import { describe, expect, test } from "bun:test";
import { anthropicAdapter as adapter } from "../../../src/providers/anthropic/adapter";
import type { ChatRequest, ContentPart } from "../../../src/providers/types";
import { assemble, runStream, target } from "./stream-harness";

function build(parts: ContentPart[]) {
  const req: ChatRequest = { model: "m", messages: [{ role: "user", content: [...parts, { type: "text", text: "Summarise." }] }] };
  const built = adapter.buildRequest(req, target("anthropic"));
  return { warnings: built.warnings, blocks: JSON.parse(built.body).messages[0].content.slice(0, -1) };
}

const file = (file_data: string, filename?: string): ContentPart => ({
  type: "file",
  file: { file_data, ...(filename ? { filename } : {}) },
});

describe("anthropic documents: chat file parts", () => {
  test("a base64 PDF is a base64 document, titled by its filename", () => {
    expect(build([file("data:application/pdf;base64,JVBERi0xLjQ=", "report.pdf")]).blocks).toEqual([
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" }, title: "report.pdf" },
    ]);
  });

  test("plain text, base64 or percent-encoded, is a text document", () => {
    const b64 = Buffer.from("Grüße, world", "utf8").toString("base64");
    expect(build([file(`data:text/plain;base64,${b64}`, "notes.txt"), file("data:text/plain,a%20b")]).blocks).toEqual([
      { type: "document", source: { type: "text", media_type: "text/plain", data: "Grüße, world" }, title: "notes.txt" },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "a b" } },
    ]);
  });

  test("an image sent as a file is an image block; a Messages client's citations option stays on the document", () => {
    const pdf = { ...file("data:application/pdf;base64,JVBERi0="), citations: { enabled: true } } as ContentPart;
    expect(build([file("data:image/png;base64,iVBORw0KGgo="), pdf]).blocks).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, citations: { enabled: true } },
    ]);
  });

  test("other kinds (a Files API id, a spreadsheet) are dropped with a warning each", () => {
    const { blocks, warnings } = build([
      { type: "file", file: { file_id: "file-abc" } },
      file("data:application/vnd.ms-excel;base64,AAAA", "sheet.xls"),
    ]);
    expect(blocks).toEqual([]);
    expect(warnings.map((w) => [w.type, w.code])).toEqual([
      ["unsupported_parameter", "content.file"],
      ["unsupported_parameter", "content.file"],
    ]);
  });
});

const charLocation = {
  type: "char_location",
  cited_text: "The grass is green.",
  document_index: 0,
  document_title: "Facts",
  start_char_index: 0,
  end_char_index: 20,
};
const webResult = {
  type: "web_search_result_location",
  url: "https://sky.example/blue",
  title: "Why the sky is blue",
  encrypted_index: "Eo8BCioIAhgB",
  cited_text: "The sky is blue because…",
};
const pageLocation = {
  type: "page_location",
  cited_text: "p. 3",
  document_index: 1,
  document_title: "Report",
  start_page_number: 3,
  end_page_number: 4,
};

// "Per the doc, " (0–13) "the grass is green" (13–31) " and " (31–36) "the sky is blue" (36–51)
const expectedAnnotations = [
  { type: "anthropic_citation", start_index: 13, end_index: 31, anthropic: charLocation },
  { type: "anthropic_citation", start_index: 13, end_index: 31, anthropic: pageLocation },
  {
    type: "url_citation",
    url_citation: { url: "https://sky.example/blue", title: "Why the sky is blue", start_index: 36, end_index: 51 },
    anthropic: webResult,
  },
];

describe("anthropic citations → annotations", () => {
  test("a JSON answer's cited text blocks give annotations over their span in the joined content", () => {
    const json = {
      id: "msg_1",
      content: [
        { type: "text", text: "Per the doc, " },
        { type: "text", text: "the grass is green", citations: [charLocation, pageLocation] },
        { type: "text", text: " and " },
        { type: "text", text: "the sky is blue", citations: [webResult] },
      ],
      stop_reason: "end_turn",
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    const message = adapter.parseResponse(json, target("anthropic")).choices[0]!.message;
    expect(message.content).toBe("Per the doc, the grass is green and the sky is blue");
    expect(message.annotations).toEqual(expectedAnnotations);
    expect(message.content!.slice(36, 51)).toBe("the sky is blue");
  });

  test("an answer without citations has no annotations", () => {
    const json = { id: "m", content: [{ type: "text", text: "hi", citations: null }], usage: {} };
    expect(adapter.parseResponse(json, target("anthropic")).choices[0]!.message.annotations).toBeUndefined();
  });

  test("a stream's citations_delta come out as extra.annotations when their text block ends", async () => {
    const sse = (data: { type: string; [k: string]: unknown }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
    const text = (index: number, t: string) => sse({ type: "content_block_delta", index, delta: { type: "text_delta", text: t } });
    const cite = (index: number, citation: unknown) =>
      sse({ type: "content_block_delta", index, delta: { type: "citations_delta", citation } });
    const events = await runStream("anthropic", [
      sse({ type: "message_start", message: { id: "msg_1", model: "claude", usage: { input_tokens: 1, output_tokens: 0 } } }),
      sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      text(0, "Per the doc, "),
      sse({ type: "content_block_stop", index: 0 }),
      sse({ type: "content_block_start", index: 1, content_block: { type: "text", text: "", citations: [] } }),
      cite(1, charLocation),
      cite(1, pageLocation),
      text(1, "the grass "),
      text(1, "is green"),
      sse({ type: "content_block_stop", index: 1 }),
      sse({ type: "content_block_start", index: 2, content_block: { type: "text", text: "" } }),
      text(2, " and "),
      sse({ type: "content_block_stop", index: 2 }),
      sse({ type: "content_block_start", index: 3, content_block: { type: "text", text: "" } }),
      cite(3, webResult),
      text(3, "the sky is blue"),
      sse({ type: "content_block_stop", index: 3 }),
      sse({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } }),
      sse({ type: "message_stop" }),
    ]);
    expect(assemble(events).content).toBe("Per the doc, the grass is green and the sky is blue");
    const annotations = events.flatMap((e) =>
      e.type === "delta" && Array.isArray(e.delta.extra?.annotations) ? e.delta.extra.annotations : [],
    );
    expect(annotations).toEqual(expectedAnnotations);
    // Each block's annotations come right after its text, before the next block's.
    const order = events.flatMap((e) => (e.type !== "delta" ? [] : e.delta.extra?.annotations ? ["a"] : e.delta.content ? ["c"] : []));
    expect(order.join("")).toBe("cccacca");
  });
});
