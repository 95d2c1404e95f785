// POST /v1/chat/completions body: OpenAI's request surface, loose where OpenAI is loose (unknown fields are
// carried to OpenAI-compatible providers), strict on the gateway's own fields.
import { Type, type Static } from "@sinclair/typebox";
import { ExtensionsField, GatewayField } from "../gateway-schema";

const ContentPart = Type.Object({ type: Type.String({ minLength: 1 }) }, { additionalProperties: true });

export const ChatMessageSchema = Type.Object(
  {
    role: Type.Union(["system", "developer", "user", "assistant", "tool"].map((r) => Type.Literal(r))),
    content: Type.Optional(Type.Union([Type.String(), Type.Array(ContentPart), Type.Null()])),
    name: Type.Optional(Type.String()),
    tool_call_id: Type.Optional(Type.String()),
    tool_calls: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String(),
            type: Type.Literal("function"),
            function: Type.Object({ name: Type.String(), arguments: Type.String() }),
          },
          { additionalProperties: true },
        ),
      ),
    ),
  },
  { additionalProperties: true },
);

const ToolSchema = Type.Object(
  {
    type: Type.Literal("function"),
    function: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 64 }),
        description: Type.Optional(Type.String()),
        parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

export const ChatCompletionBody = Type.Object(
  {
    model: Type.Optional(Type.String({ minLength: 1 })),
    messages: Type.Array(ChatMessageSchema, { minItems: 1 }),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    tools: Type.Optional(Type.Array(ToolSchema)),
    temperature: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()])),
    top_p: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])),
    max_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    max_completion_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    n: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 128 }), Type.Null()])),
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 }), Type.Null()])),
    seed: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    presence_penalty: Type.Optional(Type.Union([Type.Number({ minimum: -2, maximum: 2 }), Type.Null()])),
    frequency_penalty: Type.Optional(Type.Union([Type.Number({ minimum: -2, maximum: 2 }), Type.Null()])),
    logprobs: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    top_logprobs: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 20 }), Type.Null()])),
    logit_bias: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Number()), Type.Null()])),
    user: Type.Optional(Type.String()),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    response_format: Type.Optional(
      Type.Object(
        { type: Type.Union([Type.Literal("text"), Type.Literal("json_object"), Type.Literal("json_schema")]) },
        { additionalProperties: true },
      ),
    ),
    stream_options: Type.Optional(
      Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: true }), Type.Null()]),
    ),
    reasoning_effort: Type.Optional(Type.String()),
    gateway: Type.Optional(GatewayField),
    extensions: Type.Optional(ExtensionsField),
  },
  { additionalProperties: true },
);
export type ChatCompletionBodyT = Static<typeof ChatCompletionBody>;
