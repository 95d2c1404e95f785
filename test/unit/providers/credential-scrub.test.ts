// The exact credential an attempt sent is cut out of every upstream error message, in the encodings a
// provider may quote it in; the heuristic also sees keys glued to `key=` or inside JSON.
import { describe, expect, test } from "bun:test";
import { adapterFor } from "../../../src/providers/registry";
import { openAIResponsesAdapter } from "../../../src/providers/openai-responses/adapter";
import { classifyStatus, redactSecrets, withoutCredential } from "../../../src/providers/upstream-errors";

const KEY = "Plain/Looking+Credential Words";

describe("credential scrub", () => {
  test("every adapter's classifyError cuts out the credential it is given, raw, URL- and JSON-encoded", () => {
    const message = `bad key=${KEY} | ${encodeURIComponent(KEY)} | ${JSON.stringify({ key: KEY })}`;
    for (const adapter of [adapterFor("openai"), adapterFor("anthropic"), adapterFor("gemini"), openAIResponsesAdapter]) {
      const name = adapter.name;
      const body =
        name === "anthropic" ? { type: "error", error: { type: "invalid_request_error", message } } : { error: { message, code: 400 } };
      const error = adapter.classifyError(400, JSON.stringify(body), new Headers(), KEY);
      expect(error.message).not.toContain(KEY);
      expect(error.message).not.toContain(encodeURIComponent(KEY));
      expect(error.message).toContain("[redacted]");
    }
  });

  test("the credential is cut out before the message is shortened, so no prefix of it survives", () => {
    const error = classifyStatus(400, `${"x ".repeat(240)}key=${KEY}`, new Headers(), KEY);
    expect(error.message).not.toContain("Plain/Looking");
  });

  test("a credential too short to be one does not garble the message", () => {
    expect(withoutCredential("a test message", "test")).toBe("a test message");
  });

  test("the heuristic masks a different key glued to key= or quoted in JSON", () => {
    const other = "sk-proj-abcdefghijklmnop";
    const out = redactSecrets(`key=${other} {"api_key":"${other}"} api_key=${other}`);
    expect(out).not.toContain(other);
    expect(out).toBe(`key=[redacted] {"api_key":"[redacted]"} api_key=[redacted]`);
  });
});
