import { describe, expect, test } from "bun:test";
import type { AdapterName } from "../../../src/catalog/types";
import { adapterFor } from "../../../src/providers/registry";
import { target } from "./stream-harness";

const ADAPTERS: AdapterName[] = ["openai", "anthropic", "gemini"];

describe("registry", () => {
  for (const name of ADAPTERS) {
    test(`adapterFor("${name}") returns the adapter of that wire protocol`, () => {
      expect(adapterFor(name).name).toBe(name);
    });

    test(`${name}: cancelling the translated stream cancels the upstream body`, async () => {
      let cancelled: unknown = null;
      const upstream = new ReadableStream<Uint8Array>({
        pull() {
          // Never produces: a stalled upstream.
          return new Promise(() => {});
        },
        cancel(reason) {
          cancelled = reason ?? "cancelled";
        },
      });
      const reader = upstream.pipeThrough(adapterFor(name).streamTransform(target(name))).getReader();
      await reader.cancel("client went away");
      const deadline = Date.now() + 1000;
      while (cancelled === null && Date.now() < deadline) await Bun.sleep(2);
      expect(cancelled).not.toBeNull();
    });
  }
});
