// OpenAI's Responses API wire protocol (POST {baseUrl}/responses), for models OpenAI offers only
// there (catalog routes whose endpoints are ["responses"]). Same vendor, credential, error bodies and
// model listing as chat completions, so classifyError and validateCredential are the
// OpenAI-compatible ones; only the request, answer and stream shapes differ.
import type { ProviderAdapter } from "../types";
import { chainTransforms, sseDecoder } from "../sse-decode";
import { openAICompatibleAdapter } from "../openai-compatible/adapter";
import { buildResponsesRequest } from "./request";
import { parseResponsesResponse } from "./response";
import { responsesStreamTransformer, responsesStreamTranslator } from "./stream";

export const openAIResponsesAdapter: ProviderAdapter = {
  name: "openai",
  buildRequest: buildResponsesRequest,
  parseResponse: parseResponsesResponse,
  streamTransform: (target) => chainTransforms(sseDecoder(), responsesStreamTranslator(target)),
  streamTransformer: (target) => responsesStreamTransformer(target),
  classifyError: (status, bodyText, headers, credential) => openAICompatibleAdapter.classifyError(status, bodyText, headers, credential),
  validateCredential: (baseUrl, apiKey, timeoutMs, fetchImpl) =>
    openAICompatibleAdapter.validateCredential(baseUrl, apiKey, timeoutMs, fetchImpl),
};
