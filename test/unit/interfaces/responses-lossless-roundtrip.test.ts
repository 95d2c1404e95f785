// Three turns of a Responses client whose route answers with another family's reasoning (or the
// Responses API's own): each answer is rendered (JSON, or streamed), its output items go back as the
// next turn's input, and the chat request rebuilt from them carries exactly the entries the provider gave.
import { describe, expect, test } from "bun:test";
import { renderResponse, type ResponseObject } from "../../../src/inference/responses/render";
import { parseResponsesRequest } from "../../../src/inference/responses/schema";
import { responsesStreamEncoder } from "../../../src/inference/responses/stream";
import { responsesToChat } from "../../../src/inference/responses/to-chat";
import type { PipelineEvent } from "../../../src/inference/types";
import type { ReasoningDetail } from "../../../src/providers/reasoning";
import type { ChatRequest } from "../../../src/providers/types";
import { chatResult, delta, done, encode, parseSse } from "./pipeline-fixtures";
import { anthropicDetails, responsesDetails } from "./responses-lossless-fixtures";

const call = { id: "call_1", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
const tools = [{ type: "function", name: "get_weather", parameters: { type: "object", properties: {} } }];

function turn(input: unknown[], include: string[]): { request: ChatRequest; body: Record<string, unknown> } {
  const body = { model: "acme/chat-small", input, tools, store: false, ...(include.length ? { include } : {}) };
  const parsed = parseResponsesRequest(body);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const { request, warnings } = responsesToChat(parsed.body);
  expect(warnings).toEqual([]);
  return { request, body };
}

/** The second answer, streamed: its entries as fragments (one per entry, then signatures), then text. */
function streamed(entries: ReasoningDetail[], text: string): PipelineEvent[] {
  const fragments = entries.map(({ index: _i, ...d }, index) => delta({ extra: { reasoning_details: [{ ...d, index }] } }));
  return [delta({ role: "assistant", content: "" }), ...fragments, delta({ content: text }, "stop"), done];
}

async function streamedResponse(events: PipelineEvent[], echo: ReturnType<typeof responsesToChat>["echo"]): Promise<ResponseObject> {
  const sse = parseSse(await encode(responsesStreamEncoder(echo), events));
  return sse[sse.length - 1]!.data.response as ResponseObject;
}

/** The chat requests of turns 2 and 3. */
async function threeTurns(first: ReasoningDetail[], second: ReasoningDetail[], include: string[]): Promise<ChatRequest[]> {
  const history: unknown[] = [{ role: "user", content: "Weather in Paris?" }];
  // Turn 1: a tool call with reasoning, answered as JSON.
  const t1 = turn(history, include);
  const r1 = renderResponse(
    chatResult({ content: null, tool_calls: [call], reasoning_details: first }, "tool_calls"),
    responsesToChat(t1.body as never).echo,
  );
  history.push(...r1.output, { type: "function_call_output", call_id: "call_1", output: "18C" });
  // Turn 2: the client sends the items back; the provider answers again, streamed.
  const t2 = turn(history, include);
  const r2 = await streamedResponse(streamed(second, "Sunny, 18C."), responsesToChat(t2.body as never).echo);
  history.push(...r2.output, { role: "user", content: "Thanks!" });
  // Turn 3: both turns' reasoning is back, entry for entry.
  return [t2.request, turn(history, include).request];
}

const secondAnthropic: ReasoningDetail[] = [
  { type: "reasoning.text", text: "Now answer.", signature: "SecondSig==", format: "anthropic-claude-v1" },
];
const secondResponses: ReasoningDetail[] = [
  { type: "reasoning.summary", summary: "**Answering**", id: "rs_ccc", format: "openai-responses-v1" },
  { type: "reasoning.encrypted", data: "gAAAAABsecond==", id: "rs_ccc", format: "openai-responses-v1" },
];

describe("reasoning survives three Responses turns", () => {
  for (const include of [[], ["reasoning.encrypted_content"]]) {
    test(`Anthropic entries with signatures come back exactly (include ${JSON.stringify(include)})`, async () => {
      const [second, request] = await threeTurns(anthropicDetails, secondAnthropic, include);
      expect(second!.messages[1]!.reasoning_details).toEqual(anthropicDetails);
      expect(request!.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
      expect(request!.messages[1]).toEqual({ role: "assistant", content: null, tool_calls: [call], reasoning_details: anthropicDetails });
      expect(request!.messages[3]).toEqual({ role: "assistant", content: "Sunny, 18C.", reasoning_details: secondAnthropic });
    });
  }

  test("Responses entries keep their ids, summaries and encrypted_content when the client asks for encrypted content", async () => {
    const [second, request] = await threeTurns(responsesDetails, secondResponses, ["reasoning.encrypted_content"]);
    expect(second!.messages[1]!.reasoning_details).toEqual(responsesDetails);
    expect(request!.messages[1]!.reasoning_details).toEqual(responsesDetails);
    expect(request!.messages[3]!.reasoning_details).toEqual(secondResponses);
  });

  test("without include, a Responses item comes back without the encrypted state the client never saw", async () => {
    const [, request] = await threeTurns(responsesDetails, secondResponses, []);
    expect(request!.messages[1]!.reasoning_details).toEqual(responsesDetails.filter((d) => d.type !== "reasoning.encrypted"));
    expect(request!.messages[3]!.reasoning_details).toEqual(secondResponses.filter((d) => d.type !== "reasoning.encrypted"));
  });
});
