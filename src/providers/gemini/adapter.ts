// The Gemini (Google Generative Language API) wire protocol. The base URL is the API root
// (https://generativelanguage.googleapis.com); the key travels in x-goog-api-key, never in the URL.
import type { ProviderAdapter } from "../types";
import { chainTransforms, sseDecoder } from "../sse-decode";
import { probeCredential } from "../credential-check";
import { classifyStatus, genericMessage, tryParseJson } from "../upstream-errors";
import { buildGeminiRequest } from "./request";
import { parseGeminiResponse } from "./response";
import { geminiStreamTransformer, geminiStreamTranslator } from "./stream";
import { geminiError, isInvalidKeyError, retryDelayMs } from "./wire";

export const geminiAdapter: ProviderAdapter = {
  name: "gemini",
  buildRequest: buildGeminiRequest,
  parseResponse: parseGeminiResponse,
  streamTransform: (target) => chainTransforms(sseDecoder(), geminiStreamTranslator(target)),
  streamTransformer: (target) => geminiStreamTransformer(target),
  classifyError(status, bodyText, headers, credential = null) {
    const error = geminiError(tryParseJson(bodyText));
    const message = error?.message ?? genericMessage(status);
    // A rejected key is a 400 on Gemini; classify it as the credential failure it is.
    const classified = isInvalidKeyError(error)
      ? { ...classifyStatus(401, message, headers, credential), status }
      : classifyStatus(status, message, headers, credential);
    if (classified.retryAfterMs === undefined) {
      const delay = retryDelayMs(error);
      if (delay !== undefined) classified.retryAfterMs = delay;
    }
    return classified;
  },
  validateCredential(baseUrl, apiKey, timeoutMs, fetchImpl = fetch) {
    const root = baseUrl.endsWith("/") ? baseUrl.slice(0, -1) : baseUrl;
    return probeCredential({
      url: `${root}/v1beta/models`,
      headers: { "x-goog-api-key": apiKey, accept: "application/json" },
      timeoutMs,
      fetchImpl,
      isRejected: (status, bodyText) => status === 400 && isInvalidKeyError(geminiError(tryParseJson(bodyText))),
    });
  },
};
