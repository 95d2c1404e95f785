// The /v1/messages request (Anthropic Messages API subset). `max_tokens` is required, as Anthropic
// requires it. Unknown fields (on the body and on blocks) are allowed and ignored; `gateway` is
// validated by the pipeline.
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { firstFieldError, type FieldError } from "../responses/validation-error";

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** A prompt-cache breakpoint ({type: "ephemeral", ttl?}); kept for the Anthropic wire (issue 55, convention 7). */
export const CacheControl = Type.Object({ type: Type.String(), ttl: Type.Optional(Type.String()) });
export type CacheControl = Static<typeof CacheControl>;
const cacheControl = Type.Optional(CacheControl);

export const TextBlock = Type.Object({ type: Type.Literal("text"), text: Type.String(), cache_control: cacheControl });
export const ImageBlock = Type.Object({
  type: Type.Literal("image"),
  source: Type.Union([
    Type.Object({ type: Type.Literal("base64"), media_type: Type.String(), data: Type.String() }),
    Type.Object({ type: Type.Literal("url"), url: Type.String() }),
  ]),
  cache_control: cacheControl,
});
export const DocumentBlock = Type.Object({
  type: Type.Literal("document"),
  source: Type.Union([
    Type.Object({ type: Type.Literal("base64"), media_type: Type.String(), data: Type.String() }),
    Type.Object({ type: Type.Literal("text"), data: Type.String() }),
    Type.Object({ type: Type.Literal("url"), url: Type.String() }),
  ]),
  title: Type.Optional(Nullable(Type.String())),
  citations: Type.Optional(Nullable(Type.Object({ enabled: Type.Optional(Type.Boolean()) }))),
  cache_control: cacheControl,
});
export const ToolUseBlock = Type.Object({
  type: Type.Literal("tool_use"),
  id: Type.String(),
  name: Type.String(),
  input: Type.Unknown(),
});
export const ToolResultBlock = Type.Object({
  type: Type.Literal("tool_result"),
  tool_use_id: Type.String(),
  content: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Union([TextBlock, ImageBlock, DocumentBlock]))])),
  is_error: Type.Optional(Type.Boolean()),
  cache_control: cacheControl,
});
// An earlier turn's thinking: its signature is the provider's (or a `swy1.` token carrying another
// family's reasoning, see providers/reasoning.ts) and must go back exactly as it came.
export const ThinkingBlock = Type.Object({
  type: Type.Literal("thinking"),
  thinking: Type.String(),
  signature: Type.Optional(Type.String()),
});
export const RedactedThinkingBlock = Type.Object({ type: Type.Literal("redacted_thinking"), data: Type.String() });

export const ContentBlock = Type.Union([
  TextBlock,
  ImageBlock,
  DocumentBlock,
  ToolUseBlock,
  ToolResultBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
]);

// A `system` turn inside `messages` (Claude Code sends them to newer models) is an instruction at that
// point of the conversation: its text blocks stay a system message there.
export const MessageParam = Type.Object({
  role: Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("system")]),
  content: Type.Union([Type.String(), Type.Array(ContentBlock)]),
});

// A custom tool has a name and an input_schema; server tools (web_search_…, bash_…) carry a
// versioned `type` instead and are dropped with a warning.
export const Tool = Type.Object({
  name: Type.String({ minLength: 1 }),
  type: Type.Optional(Nullable(Type.String())),
  description: Type.Optional(Type.String()),
  input_schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  strict: Type.Optional(Type.Boolean()),
  cache_control: cacheControl,
});

export const ToolChoice = Type.Union([
  Type.Object({ type: Type.Literal("auto"), disable_parallel_tool_use: Type.Optional(Type.Boolean()) }),
  Type.Object({ type: Type.Literal("any"), disable_parallel_tool_use: Type.Optional(Type.Boolean()) }),
  Type.Object({ type: Type.Literal("tool"), name: Type.String(), disable_parallel_tool_use: Type.Optional(Type.Boolean()) }),
  Type.Object({ type: Type.Literal("none") }),
]);

export const MessagesRequest = Type.Object({
  // Optional because `gateway.models[]` may replace it; the pipeline checks that one is given.
  model: Type.Optional(Type.String({ minLength: 1 })),
  max_tokens: Type.Integer({ minimum: 1 }),
  messages: Type.Array(MessageParam, { minItems: 1 }),
  system: Type.Optional(Type.Union([Type.String(), Type.Array(TextBlock)])),
  tools: Type.Optional(Type.Array(Tool)),
  tool_choice: Type.Optional(ToolChoice),
  stop_sequences: Type.Optional(Type.Array(Type.String())),
  temperature: Type.Optional(Type.Number({ minimum: 0 })),
  top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_k: Type.Optional(Type.Integer({ minimum: 0 })),
  metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Nullable(Type.String())) })),
  stream: Type.Optional(Type.Boolean()),
  thinking: Type.Optional(Type.Object({ type: Type.String(), budget_tokens: Type.Optional(Type.Integer({ minimum: 0 })) })),
  // `effort` is how hard the model works (adaptive thinking's depth); `format` is structured output.
  output_config: Type.Optional(
    Type.Object({
      effort: Type.Optional(Type.Union([Type.Literal("low"), Type.Literal("medium"), Type.Literal("high"), Type.Literal("max")])),
      format: Type.Optional(
        Nullable(Type.Object({ type: Type.Literal("json_schema"), schema: Type.Record(Type.String(), Type.Unknown()) })),
      ),
    }),
  ),
  // Features Anthropic's servers run (context editing, MCP connectors, code-execution containers):
  // passed through to Anthropic routes, dropped with a warning elsewhere.
  context_management: Type.Optional(Type.Unknown()),
  mcp_servers: Type.Optional(Type.Unknown()),
  container: Type.Optional(Type.Unknown()),
  gateway: Type.Optional(Type.Unknown()),
  extensions: Type.Optional(Type.Unknown()),
});
export type MessagesRequest = Static<typeof MessagesRequest>;
export type MessagesContentBlock = Static<typeof ContentBlock>;
export type MessagesMessage = Static<typeof MessageParam>;

export type ParsedMessagesRequest = { ok: true; body: MessagesRequest } | { ok: false; error: FieldError };

/** Validates a parsed JSON body; on failure names the first bad field in a clear message. */
export function parseMessagesRequest(body: unknown): ParsedMessagesRequest {
  const error = firstFieldError(MessagesRequest, body);
  return error ? { ok: false, error } : { ok: true, body: body as MessagesRequest };
}
