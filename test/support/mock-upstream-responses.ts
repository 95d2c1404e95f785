// OpenAI's Responses API (`POST …/v1/responses`) as the mock upstream speaks it: synthesized answers
// (text, function calls, usage, an incomplete response for finish "length") as a Response object or
// as its semantic event stream, framed `event: <type>\ndata: …\n\n` like the real API.
import { frameSse, pieces, resolve, type ReplySpec, type Resolved } from "./mock-upstream-wire";

function responsesUsage(r: Resolved) {
  const u = r.usage;
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached, cache_write_tokens: u.cacheWrite },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
}

function responseObject(r: Resolved, status: string, output: object[], usage: object | null) {
  const incomplete = status === "incomplete";
  return {
    id: `resp_${r.id}`,
    object: "response",
    created_at: 1750000000,
    status,
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: null,
    model: r.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage,
    user: null,
    metadata: {},
  };
}

const messageId = (r: Resolved) => `msg_${r.id}`;
const callItem = (r: Resolved, i: number, args: string, status: string) => ({
  id: `fc_${r.id}_${i}`,
  type: "function_call",
  status,
  arguments: args,
  call_id: `call_${r.id}_${i}`,
  name: r.toolCalls[i].name,
});
const outputText = (text: string) => ({ type: "output_text", annotations: [], logprobs: [], text });

function finalOutput(r: Resolved): object[] {
  const status = r.finish === "length" ? "incomplete" : "completed";
  const out: object[] = [];
  if (r.usage.reasoning > 0) out.push({ id: `rs_${r.id}`, type: "reasoning", summary: [] });
  if (r.text !== "") out.push({ id: messageId(r), type: "message", status, role: "assistant", content: [outputText(r.text)] });
  r.toolCalls.forEach((c, i) => out.push(callItem(r, i, JSON.stringify(c.arguments), "completed")));
  return out;
}

/** A synthesized non-streaming Response object. */
export function responsesReplyJson(spec: ReplySpec, model: string): unknown {
  const r = resolve(spec, model);
  return responseObject(r, r.finish === "length" ? "incomplete" : "completed", finalOutput(r), responsesUsage(r));
}

/** A synthesized Responses event stream (already framed). */
export function responsesReplySse(spec: ReplySpec, model: string): string[] {
  const r = resolve(spec, model);
  const events: object[] = [
    { type: "response.created", response: responseObject(r, "in_progress", [], null) },
    { type: "response.in_progress", response: responseObject(r, "in_progress", [], null) },
  ];
  let index = 0;
  if (r.usage.reasoning > 0) {
    const item = { id: `rs_${r.id}`, type: "reasoning", summary: [] };
    events.push(
      { type: "response.output_item.added", output_index: index, item },
      { type: "response.output_item.done", output_index: index++, item },
    );
  }
  if (r.text !== "") {
    const at = { item_id: messageId(r), output_index: index, content_index: 0 };
    events.push({
      type: "response.output_item.added",
      output_index: index,
      item: { id: messageId(r), type: "message", status: "in_progress", role: "assistant", content: [] },
    });
    events.push({ type: "response.content_part.added", ...at, part: outputText("") });
    for (const p of pieces(r.text)) events.push({ type: "response.output_text.delta", ...at, delta: p, logprobs: [] });
    events.push(
      { type: "response.output_text.done", ...at, text: r.text, logprobs: [] },
      { type: "response.content_part.done", ...at, part: outputText(r.text) },
    );
    events.push({
      type: "response.output_item.done",
      output_index: index++,
      item: { id: messageId(r), type: "message", status: "completed", role: "assistant", content: [outputText(r.text)] },
    });
  }
  r.toolCalls.forEach((c, i) => {
    const args = JSON.stringify(c.arguments);
    const half = Math.floor(args.length / 2);
    const at = { item_id: `fc_${r.id}_${i}`, output_index: index };
    events.push({ type: "response.output_item.added", output_index: index, item: callItem(r, i, "", "in_progress") });
    events.push({ type: "response.function_call_arguments.delta", ...at, delta: args.slice(0, half) });
    events.push({ type: "response.function_call_arguments.delta", ...at, delta: args.slice(half) });
    events.push({ type: "response.function_call_arguments.done", ...at, arguments: args });
    events.push({ type: "response.output_item.done", output_index: index++, item: callItem(r, i, args, "completed") });
  });
  const status = r.finish === "length" ? "incomplete" : "completed";
  events.push({ type: `response.${status}`, response: responseObject(r, status, finalOutput(r), responsesUsage(r)) });
  return events.map((e, n) => frameSse("openai-responses", JSON.stringify({ ...e, sequence_number: n })));
}

/** The first event of a stream whose next event is broken (the `malformed` behaviour). */
export function responsesFirstEvent(): unknown {
  return {
    type: "response.created",
    sequence_number: 0,
    response: {
      id: "resp_mock",
      object: "response",
      created_at: 1750000000,
      status: "in_progress",
      model: "mock-model",
      output: [],
      usage: null,
    },
  };
}
