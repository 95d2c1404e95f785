// The Overview page in a real browser against a gateway with a mock upstream: the totals of the calls
// just made, drawn charts with accessible names, interval and grouping controls that change the table,
// the credit balance, a budget's spend bar, a key without billing:read, and no overflow on a phone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { addCredits } from "../../../src/cli/credits";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, launch, openPage, signIn } from "./browser";

const CALLS = 3;

/** Has the named chart drawn a line in the first group's colour (#0645ad), not only its axes and grid? */
const drawnLine = (page: Page, name: string) =>
  page.getByRole("img", { name }).evaluate((box) => {
    const c = box.querySelector("canvas");
    if (!c || c.width === 0 || c.height === 0) return false;
    const data = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
    const near = (i: number, v: number) => Math.abs(data[i]! - v) < 40;
    for (let i = 0; i < data.length; i += 4) if (data[i + 3]! > 200 && near(i, 6) && near(i + 1, 69) && near(i + 2, 173)) return true;
    return false;
  });

describe.skipIf(!canRun)("console overview", () => {
  let g: TestGateway;
  let browser: Browser;
  let usage: { requests: number; cost_microdollars: number };
  let ttftP50: number | null;

  beforeAll(async () => {
    g = await startGateway();
    for (let i = 0; i < CALLS; i++) {
      const r = await g.s.fetch("/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        // The first call streams, so that it reports a time to first token.
        body: JSON.stringify({ model: "acme/openai-only", stream: i === 0, messages: [{ role: "user", content: `hi ${i}` }] }),
      });
      expect(r.status).toBe(200);
      await r.text();
    }
    await g.s.deps.records.flush();
    await addCredits(g.s.deps.db, g.s.workspaceId, "12.5");
    const b = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ scope: "workspace", period: "monthly", limit: 5 }),
    });
    expect(b.status).toBeLessThan(300);
    usage = ((await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/usage`)).json()) as { total: typeof usage }).total;
    const series = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/usage/series`);
    ttftP50 = ((await series.json()) as { total: { ttft_p50_ms: number | null } }).total.ttft_p50_ms;
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await g?.stop();
  });

  test("totals, drawn charts, interval and grouping controls, balance and budget; no CSP violation", async () => {
    const { page, dialogs, errors, csp } = await openPage(browser);
    try {
      await signIn(page, g.s.url, g.s.adminKey, "#/overview");
      await page
        .locator('[data-total="Requests"]')
        .filter({ hasText: String(CALLS) })
        .waitFor();
      expect(usage.requests).toBe(CALLS);
      const cost = `$${(usage.cost_microdollars / 1e6).toFixed(6)}`;
      expect(await page.locator('[data-total="Cost"]').textContent()).toBe(cost);
      expect(await page.locator("td", { hasText: "acme/openai-only" }).count()).toBeGreaterThan(0);
      expect(ttftP50).not.toBeNull();
      expect(await page.locator('[data-total="TTFT p50"]').textContent()).toBe(`${ttftP50!.toLocaleString("en-US")} ms`);
      for (const name of ["Requests and errors per day chart", "Cost per day chart", "Tokens per day chart"]) {
        await page.getByRole("img", { name }).locator("canvas").waitFor();
        expect(await drawnLine(page, name)).toBe(true);
      }
      await page
        .getByRole("img", { name: /^TTFT p50 and p95/ })
        .locator("canvas")
        .waitFor();

      // By provider, then per hour by model: the table follows each change.
      const table = page.getByRole("table", { name: "Usage by group" });
      await page.getByLabel("Group by").selectOption("provider");
      await table.getByRole("columnheader", { name: "Provider" }).waitFor();
      await table.locator("td", { hasText: "alpha" }).waitFor();
      await page.getByLabel("Interval").selectOption("hour");
      await page.getByLabel("Group by").selectOption("model");
      await page.getByRole("img", { name: "Requests and errors per hour chart" }).locator("canvas").waitFor();
      await table.getByRole("columnheader", { name: "Model" }).waitFor();
      const row = table.locator("tbody tr", { hasText: "acme/openai-only" });
      await row.waitFor();
      expect(await row.locator('td[data-col="Requests"]').textContent()).toBe(String(CALLS));
      expect(await page.getByText(/48 buckets per hour/).count()).toBe(1);
      // The hourly figures exist as text too, one row per non-empty hour and group.
      await page.getByText("The figures behind the charts").click();
      const hourly = page.getByRole("table", { name: "Usage per bucket" });
      await hourly.waitFor();
      const perHour = await hourly.locator('td[data-col="Requests"]').allTextContents();
      expect(perHour.reduce((n, t) => n + Number(t), 0)).toBe(CALLS);

      // Grouped by key, the admin key appears by its name.
      const me = (await (await g.s.fetch("/v1/me")).json()) as { name: string };
      await page.getByLabel("Group by").selectOption("api_key");
      await table.getByRole("columnheader", { name: "API key" }).waitFor();
      await table.locator("td", { hasText: me.name }).waitFor();

      const balance = page.getByRole("region", { name: "Credit balance" });
      await balance.locator("[data-balance]").waitFor();
      const left = (await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/billing/balance`)).json()) as {
        balance_microdollars: number;
      };
      expect(await balance.locator("[data-balance]").textContent()).toBe(`$${(left.balance_microdollars / 1e6).toFixed(6)}`);
      const bar = page.getByRole("region", { name: "Budgets" }).locator('meter[data-spend="workspace · monthly"]');
      await bar.waitFor();
      expect(Number(await bar.getAttribute("max"))).toBe(5_000_000);
      expect(Number(await bar.getAttribute("value"))).toBe(usage.cost_microdollars);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("a range the API refuses shows its message beside the date field", async () => {
    const { page, errors } = await openPage(browser);
    try {
      await signIn(page, g.s.url, g.s.adminKey, "#/overview");
      await page.locator('[data-total="Requests"]').waitFor();
      await page.getByLabel("Interval").selectOption("hour");
      await page.getByLabel("From (UTC)").fill("2020-01-01");
      await page.locator("#f-start_date-error").waitFor();
      expect(await page.getByLabel("From (UTC)").getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#f-start_date-error").textContent()).toContain("more than 1000");
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("a key without billing:read or budgets:read: the cards name the scope they need", async () => {
    const { key } = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: "usage-only", scopes: ["usage:read"] });
    const { page, errors } = await openPage(browser);
    try {
      await signIn(page, g.s.url, key, "#/overview");
      await page
        .locator('[data-total="Requests"]')
        .filter({ hasText: String(CALLS) })
        .waitFor();
      await page.getByRole("region", { name: "Credit balance" }).getByText("Needs the billing:read scope.").waitFor();
      await page.getByRole("region", { name: "Budgets" }).getByText("Needs the budgets:read scope.").waitFor();
      // Without keys:read, grouping by key shows the key's ID.
      await page.getByLabel("Group by").selectOption("api_key");
      const admin = (await (await g.s.fetch("/v1/me")).json()) as { api_key_id: string };
      await page.getByRole("table", { name: "Usage by group" }).locator("td", { hasText: admin.api_key_id }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("at 390×844 the page does not overflow sideways and the charts fit", async () => {
    const { page, errors, csp } = await openPage(browser, { width: 390, height: 844 });
    try {
      await signIn(page, g.s.url, g.s.adminKey, "#/overview");
      await page.getByRole("img", { name: "Requests and errors per day chart" }).locator("canvas").waitFor();
      await page.locator('meter[data-spend="workspace · monthly"]').waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const box = await page.getByRole("img", { name: "Cost per day chart" }).boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
