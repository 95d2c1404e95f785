// A chat completions request to an OpenAI-compatible route: already the route's own dialect, so the body
// goes as the client sent it (model replaced, usage asked for on streams: the call is metered by it) with
// the client's OpenAI-Beta header, and a JSON answer comes back as the provider wrote it. Streams keep
// the translating reader: its pass-through of plain content chunks is the gateway's fastest path, and
// every delta field it has no name for travels on (ChunkDelta.extra) as it came. Errors keep the
// gateway's chat contract (the API document's status table and envelope), which chat clients are
// written against.
import type { ChatRequest, NativeAdapter } from "../types";
import { chainTransforms, sseDecoder } from "../sse-decode";
import { openAICompatibleAdapter } from "./adapter";
import { chatRequest } from "./request";
import { openAIStreamTransformer, openAIStreamTranslator } from "./stream";

export const openAIChatNativeAdapter: NativeAdapter = {
  ...openAICompatibleAdapter,
  wire: "chat",
  streamTransform: (target) => chainTransforms(sseDecoder(), openAIStreamTranslator(target, true)),
  streamTransformer: (target) => openAIStreamTransformer(target, true),
  buildNative(native, target, stream) {
    const body = native.body as ChatRequest;
    const built = chatRequest(stream && body.stream !== true ? { ...body, stream: true } : body, target);
    const beta = native.headers["openai-beta"];
    if (beta !== undefined) built.headers["openai-beta"] = beta;
    return built;
  },
};
