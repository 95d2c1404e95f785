// The Anthropic Messages API wire protocol. The base URL is the API root (https://api.anthropic.com).
import type { ProviderAdapter } from "../types";
import { chainTransforms, sseDecoder } from "../sse-decode";
import { probeCredential } from "../credential-check";
import { classifyStatus, genericMessage, tryParseJson } from "../upstream-errors";
import { ANTHROPIC_VERSION, anthropicApiRoot, buildAnthropicRequest } from "./request";
import { parseAnthropicResponse } from "./response";
import { anthropicStreamTransformer, anthropicStreamTranslator } from "./stream";
import { anthropicError } from "./wire";

export const anthropicAdapter: ProviderAdapter = {
  name: "anthropic",
  buildRequest: buildAnthropicRequest,
  parseResponse: parseAnthropicResponse,
  streamTransform: (target) => chainTransforms(sseDecoder(), anthropicStreamTranslator(target)),
  streamTransformer: (target) => anthropicStreamTransformer(target),
  classifyError(status, bodyText, headers, credential = null) {
    return classifyStatus(status, anthropicError(tryParseJson(bodyText))?.message ?? genericMessage(status), headers, credential);
  },
  validateCredential(baseUrl, apiKey, timeoutMs, fetchImpl = fetch) {
    return probeCredential({
      url: `${anthropicApiRoot(baseUrl)}/v1/models`,
      headers: { "x-api-key": apiKey, "anthropic-version": ANTHROPIC_VERSION, accept: "application/json" },
      timeoutMs,
      fetchImpl,
    });
  },
};
