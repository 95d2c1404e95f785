// The OpenAI-compatible wire protocol (OpenAI, Groq, Together, DeepSeek, Mistral, xAI, OpenRouter,
// vLLM, Ollama, LM Studio). Vendor differences are data in the catalog, not branches here.
import type { ProviderAdapter } from "../types";
import { chainTransforms, sseDecoder } from "../sse-decode";
import { probeCredential } from "../credential-check";
import { classifyStatus, genericMessage, tryParseJson } from "../upstream-errors";
import { buildOpenAIRequest, trimSlash } from "./request";
import { parseOpenAIResponse } from "./response";
import { openAIStreamTransformer, openAIStreamTranslator } from "./stream";
import { openAIErrorMessage } from "./wire";

export const openAICompatibleAdapter: ProviderAdapter = {
  name: "openai",
  buildRequest: buildOpenAIRequest,
  parseResponse: parseOpenAIResponse,
  streamTransform: (target) => chainTransforms(sseDecoder(), openAIStreamTranslator(target)),
  streamTransformer: (target) => openAIStreamTransformer(target),
  classifyError(status, bodyText, headers, credential = null) {
    return classifyStatus(status, openAIErrorMessage(tryParseJson(bodyText)) ?? genericMessage(status), headers, credential);
  },
  validateCredential(baseUrl, apiKey, timeoutMs, fetchImpl = fetch) {
    return probeCredential({
      url: `${trimSlash(baseUrl)}/models`,
      headers: { authorization: `Bearer ${apiKey}`, accept: "application/json" },
      timeoutMs,
      fetchImpl,
    });
  },
};
