// The console's Requests page in a real browser against a gateway with a mock upstream: the filters
// (model, success, trace ID, in the address so the view can be linked), paging, the API's message beside
// a bad date, opening a request by its X-Request-ID, from the table and from a link, its attempts and
// routing decision, the not-found state, and no sideways overflow at a phone's width.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, launch, navLink, openPage, signIn } from "./browser";

const BULK = 21;

describe.skipIf(!canRun)("console: requests", () => {
  let g: TestGateway;
  let browser: Browser;

  const chat = async (requestId: string, body: Record<string, unknown>, expected = 200) => {
    const r = await g.s.fetch("/v1/chat/completions", {
      method: "POST",
      headers: { "x-request-id": requestId },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
    });
    expect(r.status).toBe(expected);
  };

  beforeAll(async () => {
    g = await startGateway();
    // The oldest calls, so the ones below lead the first page (newest first).
    for (let i = 0; i < BULK; i++) await chat(`rq-bulk-${i}`, { model: "acme/anthropic-only" });
    await chat("rq-one", { model: "acme/openai-only", gateway: { metadata: { trace_id: "trace-a", tags: ["first"] } } });
    // service_tier priority is dropped on a platform key, with an unsupported_parameter warning.
    await chat("rq-warn", { model: "acme/openai-only", service_tier: "priority", gateway: { metadata: { trace_id: "trace-b" } } });
    g.mock.setScript({ provider: "gamma" }, { kind: "error", status: 500, message: "down" });
    await chat("rq-fallback", { model: "acme/chat", gateway: { routing: { optimize: "cost" } } });
    await chat("rq-fail", { model: "acme/gemini-only" }, 502);
    g.mock.reset();
    await g.s.deps.records.flush();
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await g?.stop();
  });

  const filters = (page: Page) => page.getByRole("form", { name: "Filter requests" });
  const apply = (page: Page) => filters(page).getByRole("button", { name: "Apply filters" }).click();
  const ids = (page: Page) => page.locator('table[aria-label="Requests"] td[data-col="Request ID"]').allTextContents();
  // Two filters in a row can show the same pager text, so the rows themselves are waited for (10 s at most).
  const rowsAre = async (page: Page, expected: string[]) => {
    const want = [...expected].sort();
    await page
      .waitForFunction(
        (w) =>
          JSON.stringify(
            Array.from(document.querySelectorAll('table[aria-label="Requests"] td[data-col="Request ID"]'))
              .map((e) => e.textContent)
              .sort(),
          ) === JSON.stringify(w),
        want,
        { timeout: 10_000 },
      )
      .catch(() => {});
    expect((await ids(page)).sort()).toEqual(want);
  };
  const pageText = (page: Page, text: string) =>
    page.getByRole("navigation", { name: "Pages of requests" }).getByText(text, { exact: true }).waitFor();

  test("filters by model, success and trace ID change the rows; paging; a bad date's message sits beside its field", async () => {
    const { page, dialogs, errors } = await openPage(browser);
    try {
      await signIn(page, g.s.url, g.s.adminKey);
      await navLink(page, "Requests").click();
      await pageText(page, `1–20 of ${BULK + 4}`);
      expect((await ids(page)).length).toBe(20);
      const pager = page.getByRole("navigation", { name: "Pages of requests" });
      expect(await pager.getByRole("button", { name: "Previous" }).isDisabled()).toBe(true);
      await pager.getByRole("button", { name: "Next" }).click();
      await pageText(page, `21–${BULK + 4} of ${BULK + 4}`);
      expect((await ids(page)).length).toBe(BULK + 4 - 20);
      expect(await pager.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
      await pager.getByRole("button", { name: "Previous" }).click();
      await pageText(page, `1–20 of ${BULK + 4}`);
      // An address past the end (a hand-edited offset) says so, and Previous goes to the last page.
      await page.goto(`${g.s.url}/console#/requests/${encodeURIComponent("?offset=1000")}`);
      await page.getByText("No requests on this page.").waitFor();
      await pageText(page, `0 of ${BULK + 4}`);
      await pager.getByRole("button", { name: "Previous" }).click();
      await pageText(page, `21–${BULK + 4} of ${BULK + 4}`);

      await filters(page).getByLabel("Model").fill("acme/openai-only");
      await apply(page);
      await pageText(page, "1–2 of 2");
      await rowsAre(page, ["rq-one", "rq-warn"]);
      // The filter is in the address: a reload (still signed in) shows the same view.
      expect(decodeURIComponent(page.url())).toContain("model=acme%2Fopenai-only");
      await page.reload();
      await pageText(page, "1–2 of 2");
      expect(await filters(page).getByLabel("Model").inputValue()).toBe("acme/openai-only");

      await filters(page).getByLabel("Model").fill("");
      await filters(page).getByLabel("Success").selectOption({ label: "Failed" });
      await apply(page);
      await pageText(page, "1–1 of 1");
      await rowsAre(page, ["rq-fail"]);

      await filters(page).getByLabel("Success").selectOption({ label: "Any" });
      await filters(page).getByLabel("Trace ID").fill("trace-b");
      await apply(page);
      await pageText(page, "1–1 of 1");
      await rowsAre(page, ["rq-warn"]);

      await filters(page).getByLabel("Trace ID").fill("no-such-trace");
      await apply(page);
      await page.getByText("No requests match these filters.").waitFor();

      await filters(page).getByRole("button", { name: "Clear filters" }).click();
      await pageText(page, `1–20 of ${BULK + 4}`);
      await filters(page).getByLabel("From").fill("yesterday");
      await apply(page);
      const error = page.locator("#f-start_date-error");
      await error.waitFor();
      expect(await error.textContent()).toContain("Invalid 'start_date'");
      expect(await filters(page).getByLabel("From").getAttribute("aria-invalid")).toBe("true");
      expect(await filters(page).getByLabel("From").getAttribute("aria-describedby")).toContain("f-start_date-error");
      expect(await page.locator("#f-end_date-error").count()).toBe(0);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("a request opened by its ID shows the routing decision and warning; one from the table shows every attempt; an unknown ID is not found", async () => {
    const { page, dialogs, errors } = await openPage(browser);
    try {
      await signIn(page, g.s.url, g.s.adminKey, "#/requests");
      await page.getByLabel("Open request ID").fill("not an id?");
      await page.getByRole("button", { name: "Open", exact: true }).click();
      expect(await page.locator("#open-request-id-error").textContent()).toContain("X-Request-ID");
      expect(page.url()).toMatch(/#\/requests$/);
      await page.getByLabel("Open request ID").fill("rq-warn");
      await page.getByRole("button", { name: "Open", exact: true }).click();
      const detail = page.getByRole("region", { name: "Request detail" });
      await detail.getByRole("heading", { name: "Routing decision" }).waitFor();
      expect(page.url()).toContain("#/requests/rq-warn");
      expect(await detail.locator('[data-field="Request ID"]').textContent()).toBe("rq-warn");
      expect(await detail.locator('[data-field="Trace ID"]').textContent()).toBe("trace-b");
      expect(await detail.locator('[data-field="TTFT estimate"]').textContent()).toMatch(/^\d+ ms$/);
      expect(await detail.locator('[data-field="Throughput estimate"]').textContent()).toMatch(/^[\d.]+ tokens\/s$/);
      expect(await detail.locator('[data-field="Exploration"]').textContent()).toMatch(/^(yes|no)$/);
      const warnings = detail.getByRole("list", { name: "Warnings" });
      expect(await warnings.textContent()).toContain("service_tier");
      expect(await detail.locator('[data-field="Input tokens"]').textContent()).toMatch(/^\d+$/);
      expect(await detail.locator('[data-field="Cost"]').textContent()).toMatch(/^\$\d+\.\d{6}/);

      await detail.getByRole("button", { name: "← Back to requests" }).click();
      await pageText(page, `1–20 of ${BULK + 4}`);
      await page.locator("tbody tr", { hasText: "rq-fallback" }).getByRole("button").click();
      await detail.getByRole("heading", { name: "Attempts" }).waitFor();
      const attempts = detail.getByRole("table", { name: "Attempts" });
      const providers = await attempts.locator('td[data-col="Provider"]').allTextContents();
      expect(providers.length).toBeGreaterThan(1);
      expect(providers[0]).toBe("gamma");
      expect(await attempts.locator('td[data-col="Status"]').first().textContent()).toBe("500");
      expect(await attempts.locator('td[data-col="Final"]').allTextContents()).toEqual(
        providers.map((_, i) => (i === providers.length - 1 ? "yes" : "no")),
      );
      for (const est of await attempts.locator('td[data-col="TTFT estimate ms"]').allTextContents()) expect(est).toMatch(/^\d+$/);

      await page.goto(`${g.s.url}/console#/requests/rq-nope`);
      await detail.getByRole("heading", { name: "Request not found" }).waitFor();
      expect(await detail.textContent()).toContain("rq-nope");
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("a link to #/requests/<X-Request-ID> opens the request right after sign-in; no sideways overflow at 390 px", async () => {
    const { page, dialogs, errors } = await openPage(browser, { width: 390, height: 844 });
    const width = () => page.evaluate(() => document.documentElement.scrollWidth);
    try {
      await signIn(page, g.s.url, g.s.adminKey, "#/requests/rq-fallback");
      const detail = page.getByRole("region", { name: "Request detail" });
      await detail.getByRole("heading", { name: "Attempts" }).waitFor();
      expect(await detail.locator('[data-field="Request ID"]').textContent()).toBe("rq-fallback");
      expect(await width()).toBeLessThanOrEqual(390);
      await page.goto(`${g.s.url}/console#/requests/rq-warn`);
      await detail.getByRole("list", { name: "Warnings" }).waitFor();
      expect(await width()).toBeLessThanOrEqual(390);
      await page.goto(`${g.s.url}/console#/requests`);
      await pageText(page, `1–20 of ${BULK + 4}`);
      expect(await width()).toBeLessThanOrEqual(390);
      await filters(page).getByLabel("From").fill("yesterday");
      await apply(page);
      await page.locator("#f-start_date-error").waitFor();
      expect(await width()).toBeLessThanOrEqual(390);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
