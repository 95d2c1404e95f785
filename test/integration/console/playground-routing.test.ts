// The Playground's routing options and failures in a real browser: extra models in fallback order reach
// the gateway as gateway.models, and when the first model's provider fails the answer names the provider
// that served it and the failed attempt; a stream that fails after its first content keeps the text that
// arrived and shows the stream's error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startGateway, type TestGateway } from "../../support/gateway";
import type { RecordedRequest } from "../../support/mock-upstream";
import { canRun, launch, navLink, openPage, signIn } from "./browser";

const sentText = (r: RecordedRequest) => JSON.stringify(r.body);

async function openPlayground(page: Page, g: TestGateway): Promise<void> {
  await signIn(page, g.s.url, g.s.adminKey);
  await navLink(page, "Playground").click();
  await page.getByRole("heading", { name: "Playground" }).waitFor();
}

async function send(page: Page, message: string): Promise<void> {
  await page.getByLabel("Message", { exact: true }).fill(message);
  await page.getByLabel("Message", { exact: true }).press("Enter");
}

describe.skipIf(!canRun)("console playground routing", () => {
  let g: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    g = await startGateway();
    g.mock.setScript((r) => r.provider === "alpha" && sentText(r).includes("fall back"), { kind: "error", status: 500 });
    g.mock.setScript((r) => r.provider === "alpha" && sentText(r).includes("stall"), {
      kind: "reply",
      text: "one two three four five six",
      hangAfterChunks: 3,
    });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await g?.stop();
  });

  test("extra models in fallback order: the first one's provider fails, the next model's serves, the attempt is listed", async () => {
    const { page, dialogs, errors } = await openPage(browser);
    try {
      await openPlayground(page, g);
      await page.getByLabel("Model", { exact: true }).selectOption("acme/openai-only");
      await page.getByLabel("More models (pool or fallback)").selectOption(["acme/anthropic-only"]);
      await page.getByLabel("Mode", { exact: true }).selectOption("fallback");
      await page.getByLabel("Optimize").selectOption("ttft");
      await send(page, "fall back please");
      const meta = page.getByRole("region", { name: "Answer 1 routing" });
      await meta.waitFor();
      expect(await meta.locator('[data-field="Provider"]').textContent()).toBe("beta");
      expect(await meta.locator('[data-field="Model"]').textContent()).toBe("acme/anthropic-only");
      expect(await meta.locator('[data-field="Strategy"]').textContent()).toBe("ttft");
      const attempts = meta.getByRole("table", { name: "Answer 1 earlier attempts" });
      expect(await attempts.locator('tbody td[data-col="Provider"]').first().textContent()).toBe("alpha");
      expect(await attempts.locator('tbody td[data-col="Status"]').first().textContent()).toBe("500");
      expect(await page.locator(".pg-assistant .pg-text").last().textContent()).toBe("Hello from the mock upstream.");
      const providers = g.mock.requests.filter((r) => sentText(r).includes("fall back")).map((r) => r.provider);
      expect(providers[0]).toBe("alpha");
      expect(providers.at(-1)).toBe("beta");
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("a stream that fails after its first content keeps that text and shows the stream's error", async () => {
    const { page, dialogs, errors } = await openPage(browser);
    try {
      await openPlayground(page, g);
      await page.getByLabel("Model", { exact: true }).selectOption("acme/openai-only");
      await send(page, "stall please");
      const turn = page.locator(".pg-assistant").last();
      await turn.getByRole("alert").waitFor();
      const text = (await turn.locator(".pg-text").textContent()) ?? "";
      expect(text.length).toBeGreaterThan(0);
      expect("one two three four five six".startsWith(text)).toBe(true);
      expect(text).not.toBe("one two three four five six");
      expect(((await turn.getByRole("alert").textContent()) ?? "").length).toBeGreaterThan(0);
      expect(await page.getByRole("button", { name: "Send" }).isEnabled()).toBe(true);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
