// The console's Playground in a real browser against a gateway with a mock upstream, on SQLite and
// Postgres: a streamed answer grows in the page and ends as the upstream's text, with its routing
// metadata, cost, TTFT and a link to its request record; the chat runs on a playground key the page
// minted (unlisted, inference-only, re-minted once revoked), never on the signed-in key; a ceiling no
// route meets shows the API's error beside its control; Stop aborts upstream; a phone width does not overflow.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { OPTIMIZE } from "../../../src/inference/gateway-schema";
import { testDatabaseKinds } from "../../support/databases";
import { startGateway, type TestGateway } from "../../support/gateway";
import type { RecordedRequest } from "../../support/mock-upstream";
import { canRun, launch, navLink, openPage, signIn, XSS } from "./browser";

const REPLY = "The playground streams this reply word by word, so the page can show it growing.";
const SLOW = "slow please";
const PLAYGROUND_KEY = "switchyard.console.playground";

const sentText = (r: RecordedRequest) => JSON.stringify(r.body);
const dollars = (micro: number) => `$${(micro / 1e6).toFixed(6)}`;

async function openPlayground(page: Page, g: TestGateway): Promise<void> {
  await signIn(page, g.s.url, g.s.adminKey);
  await navLink(page, "Playground").click();
  await page.getByRole("heading", { name: "Playground" }).waitFor();
  await page.getByLabel("Model", { exact: true }).selectOption("acme/openai-only");
}

async function send(page: Page, message: string): Promise<void> {
  await page.getByLabel("Message", { exact: true }).fill(message);
  await page.getByLabel("Message", { exact: true }).press("Enter");
}

const heldKey = (page: Page) =>
  page.evaluate((k) => JSON.parse(sessionStorage.getItem(k) ?? "null") as { key: string; api_key_id: string } | null, PLAYGROUND_KEY);

for (const db of await testDatabaseKinds()) {
  describe.skipIf(!canRun)(`console playground (${db})`, () => {
    let g: TestGateway;
    let browser: Browser;
    let adminKeyId: string;

    beforeAll(async () => {
      g = await startGateway({ db });
      g.mock.setScript({ provider: "alpha", route: "chat", stream: true }, { kind: "reply", text: REPLY, gapMs: 40 });
      g.mock.setScript((r) => sentText(r).includes(SLOW), { kind: "reply", text: "tick ".repeat(200), gapMs: 100 });
      g.mock.setScript((r) => sentText(r).includes("markup"), { kind: "reply", text: `${XSS} ${"w".repeat(300)}` });
      adminKeyId = String(((await (await g.s.fetch("/v1/me")).json()) as { api_key_id: string }).api_key_id);
      browser = await launch();
    });
    afterAll(async () => {
      await browser?.close();
      await g?.stop();
    });

    test("a streamed answer with its routing metadata, cost, TTFT and request link, on the playground key", async () => {
      const { page, dialogs, errors } = await openPage(browser);
      try {
        await openPlayground(page, g);
        const optimize = await page
          .getByLabel("Optimize")
          .locator("option")
          .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
        expect(optimize.filter((v) => v !== "")).toEqual([...OPTIMIZE]);

        await send(page, "Say hello");
        const answer = page.locator(".pg-assistant .pg-text").last();
        // Mid-stream: some of the reply is shown, not yet all of it.
        await page.waitForFunction(() => {
          const el = document.querySelector('.pg-assistant .pg-text[aria-busy="true"]');
          return el !== null && (el.textContent ?? "").length > 0;
        });
        const partial = (await answer.textContent()) ?? "";
        expect(REPLY.startsWith(partial)).toBe(true);
        expect(partial.length).toBeLessThan(REPLY.length);

        const meta = page.getByRole("region", { name: "Answer 1 routing" });
        await meta.waitFor();
        expect(await answer.textContent()).toBe(REPLY);
        expect(await meta.locator('[data-field="Provider"]').textContent()).toBe("alpha");
        expect(await meta.locator('[data-field="Provider model"]').textContent()).toBe("alpha-solo");
        expect(await meta.locator('[data-field="TTFT (browser)"]').textContent()).toMatch(/^\d+ ms$/);
        expect(await meta.locator('[data-field="TTFT (gateway)"]').textContent()).toMatch(/^\d+ ms$/);
        const link = meta.locator('[data-field="Request"] a');
        const requestId = (await link.textContent()) ?? "";
        expect(requestId).toMatch(/^req_/);
        expect(await link.getAttribute("href")).toBe(`#/requests/${requestId}`);

        // The record: the playground key made the call, not the signed-in admin key; the page showed its cost.
        await g.s.deps.records.flush();
        const record = (await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/requests/${requestId}`)).json()) as {
          api_key_id: string;
          cost_microdollars: number;
        };
        const held = (await heldKey(page))!;
        expect(record.api_key_id).toBe(held.api_key_id);
        expect(record.api_key_id).not.toBe(adminKeyId);
        expect(record.cost_microdollars).toBeGreaterThan(0);
        expect(await meta.locator('[data-field="Cost"]').textContent()).toBe(dollars(record.cost_microdollars));
        expect(page.url()).not.toContain(held.key);
        expect(await page.evaluate(() => localStorage.length)).toBe(0);

        // The playground key: not listed, inference-only.
        const listed = (await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/api-keys`)).json()) as {
          api_keys: { api_key_id: string }[];
        };
        expect(listed.api_keys.map((k) => k.api_key_id)).not.toContain(held.api_key_id);
        const all = (await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/api-keys?include_playground=true`)).json()) as {
          api_keys: { api_key_id: string; playground: boolean; scopes: string[] }[];
        };
        expect(all.api_keys.find((k) => k.api_key_id === held.api_key_id)).toMatchObject({ playground: true, scopes: [] });
        for (const path of ["/api-keys", "/requests", ""]) {
          const r = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}${path}`, { key: held.key });
          expect(r.status).toBe(403);
        }

        // A second turn carries the first (the conversation is a list of turns); Shift+Enter is a newline.
        const box = page.getByLabel("Message", { exact: true });
        await box.fill("line one");
        await box.press("Shift+Enter");
        await box.pressSequentially("line two");
        await box.press("Enter");
        await page.getByRole("region", { name: "Answer 2 routing" }).waitFor();
        expect(await page.locator(".pg-user .pg-text").last().textContent()).toBe("line one\nline two");
        const upstream = g.mock.requests.filter((r) => r.route === "chat").at(-1)!;
        expect((upstream.body as { messages: unknown[] }).messages).toEqual([
          { role: "user", content: "Say hello" },
          { role: "assistant", content: REPLY },
          { role: "user", content: "line one\nline two" },
        ]);

        await link.click();
        await page.getByRole("region", { name: "Request detail" }).getByRole("heading", { name: "Attempts" }).waitFor();
        expect(page.url()).toContain(`#/requests/${requestId}`);
        expect(dialogs).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    });

    test("a revoked playground key is minted again; a ceiling no route meets shows the API's error at its control", async () => {
      const { page, dialogs, errors } = await openPage(browser);
      try {
        await openPlayground(page, g);
        await send(page, "first");
        await page.getByRole("region", { name: "Answer 1 routing" }).waitFor();
        const first = (await heldKey(page))!;
        const revoked = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/api-keys/${first.api_key_id}`, { method: "DELETE" });
        expect(revoked.status).toBeLessThan(300);

        await send(page, "second");
        const meta = page.getByRole("region", { name: "Answer 2 routing" });
        await meta.waitFor();
        const second = (await heldKey(page))!;
        expect(second.api_key_id).not.toBe(first.api_key_id);
        await g.s.deps.records.flush();
        const id = (await meta.locator('[data-field="Request"] a').textContent()) ?? "";
        const record = (await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/requests/${id}`)).json()) as { api_key_id: string };
        expect(record.api_key_id).toBe(second.api_key_id);

        const ceiling = page.getByLabel("Max price (USD per 1M tokens)");
        await ceiling.fill("0.0001");
        await send(page, "too cheap");
        const error = page.locator("#f-gateway-routing-max_cost_per_1m-error");
        await error.waitFor();
        const api = await g.s.fetch("/v1/chat/completions", {
          method: "POST",
          body: JSON.stringify({
            model: "acme/openai-only",
            stream: true,
            messages: [{ role: "user", content: "x" }],
            gateway: { routing: { max_cost_per_1m: 0.0001 } },
          }),
        });
        expect(api.status).toBe(400);
        expect(await error.textContent()).toBe(((await api.json()) as { error: { message: string } }).error.message);
        expect(await ceiling.getAttribute("aria-invalid")).toBe("true");
        await page.getByRole("button", { name: "Go to the option it names" }).click();
        expect(await ceiling.evaluate((el) => el === document.activeElement)).toBe(true);
        expect(await page.getByLabel("Message", { exact: true }).inputValue()).toBe("too cheap");
        expect(await page.locator(".pg-turn").count()).toBe(4);
        expect(dialogs).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    });

    test("Stop aborts the stream at the upstream and keeps what arrived", async () => {
      // The gateway reads a left stream's upstream for its usage for a while; here only briefly.
      g.s.deps.inference.clientGoneDrainMs = 150;
      const { page, errors } = await openPage(browser);
      try {
        await openPlayground(page, g);
        await send(page, SLOW);
        await page.waitForFunction(
          () => (document.querySelector('.pg-assistant .pg-text[aria-busy="true"]')?.textContent ?? "").length > 0,
        );
        await page.getByRole("button", { name: "Stop" }).click();
        await page.getByText("Stopped.", { exact: true }).waitFor();
        const kept = (await page.locator(".pg-assistant .pg-text").last().textContent()) ?? "";
        expect(kept.length).toBeGreaterThan(0);
        expect(kept.length).toBeLessThan("tick ".repeat(200).length);
        const upstream = g.mock.requests.find((r) => sentText(r).includes(SLOW))!;
        const deadline = Date.now() + 3000;
        while (!upstream.aborted && Date.now() < deadline) await Bun.sleep(20);
        expect(upstream.aborted).toBe(true);
        expect(await page.getByRole("button", { name: "Send" }).isEnabled()).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        delete g.s.deps.inference.clientGoneDrainMs;
        await page.close();
      }
    });

    test("at 390×844 the page does not overflow sideways; markup in a message or answer is text", async () => {
      const { page, dialogs, errors } = await openPage(browser, { width: 390, height: 844 });
      try {
        await openPlayground(page, g);
        await send(page, `markup ${XSS} ${"u".repeat(300)}`);
        await page.getByRole("region", { name: "Answer 1 routing" }).waitFor();
        expect(await page.locator(".pg-assistant .pg-text").last().textContent()).toBe(`${XSS} ${"w".repeat(300)}`);
        expect(await page.locator("img").count()).toBe(0);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        expect(dialogs).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    });
  });
}
