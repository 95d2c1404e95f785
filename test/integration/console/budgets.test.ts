// The Budgets page in a real browser against a gateway on each database: create a budget and see its
// spend bar carry the calls made under it, edit its limit, the API's errors beside the field (a bad
// limit) or the form (a duplicate, 409), delete with an in-page confirmation, a key name holding markup
// rendered as text, a read-only key, and a phone-width layout without sideways scrolling.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { testDatabaseKinds } from "../../support/databases";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, chatCall, focusOn, launch, openPage, signIn, XSS } from "./browser";

const kinds = await testDatabaseKinds();

async function budgets(g: TestGateway): Promise<Record<string, unknown>[]> {
  const r = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { budgets: Record<string, unknown>[] }).budgets;
}

/** What the API itself answers for a body, so the page is checked against the API's words. */
async function apiError(g: TestGateway, body: unknown): Promise<{ status: number; message: string; param?: string }> {
  const r = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const e = ((await r.json()) as { error: { message: string; param?: string } }).error;
  return { status: r.status, ...e };
}

const meter = (page: Page, name: string) => page.locator(`meter[data-spend="${name}"]`);
const newForm = (page: Page) => page.getByRole("form", { name: "New budget" });

for (const kind of kinds) {
  describe.skipIf(!canRun)(`console budgets on ${kind}`, () => {
    let g: TestGateway;
    let browser: Browser;
    let xssKeyId: string;

    beforeAll(async () => {
      g = await startGateway({ db: kind });
      const made = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: XSS, scopes: [] });
      xssKeyId = made.row.id;
      await chatCall(g);
      browser = await launch();
    });
    afterAll(async () => {
      await browser?.close();
      await g?.stop();
    });

    test("create, see the spend bar, edit the limit, API errors beside their field, delete", async () => {
      const { page, dialogs, errors, csp } = await openPage(browser);
      const keys: string[] = [];
      page.on("request", (r) => {
        if (r.method() === "POST" && r.url().endsWith("/budgets")) keys.push(r.headers()["idempotency-key"] ?? "");
      });
      try {
        await signIn(page, g.s.url, g.s.adminKey, "#/budgets");
        await page.getByRole("heading", { name: "Budgets" }).waitFor();
        await page.getByText("No budgets yet.").waitFor();

        const f = newForm(page);
        await f.getByLabel("Period").selectOption("monthly");
        await f.getByLabel("Limit (USD)").fill("10");
        await f.getByRole("button", { name: "Create budget" }).click();
        const name = "Workspace, monthly";
        await meter(page, name).waitFor();
        await page.getByRole("status").filter({ hasText: "Budget created." }).waitFor();

        const [stored] = await budgets(g);
        expect(stored!.limit).toBe(10);
        const spentMicro = Math.round(Number(stored!.spend) * 1e6);
        expect(spentMicro).toBeGreaterThan(0);
        const dollars = (micro: number) => `$${(micro / 1e6).toFixed(6)}`;
        expect(await meter(page, name).getAttribute("aria-label")).toBe(`${name}: ${dollars(spentMicro)} of $10.000000`);
        expect(await meter(page, name).evaluate((m: HTMLMeterElement) => [m.value, m.max])).toEqual([spentMicro, 10_000_000]);
        const card = page.getByRole("article", { name: `Budget: ${name}` });
        expect(await card.locator(".spend-text").textContent()).toContain(`${dollars(spentMicro)} of $10.000000`);

        // Edit: a smaller limit moves the bar's figures.
        await card.getByRole("button", { name: `Edit budget ${name}` }).click();
        await card.getByLabel("Limit (USD)").fill("0.25");
        await card.getByRole("button", { name: "Save changes" }).click();
        await page.getByRole("status").filter({ hasText: "Budget updated." }).waitFor();
        await card.locator(`meter[aria-label="${name}: ${dollars(spentMicro)} of $0.250000"]`).waitFor();
        expect(await meter(page, name).evaluate((m: HTMLMeterElement) => m.max)).toBe(250_000);
        expect((await budgets(g))[0]!.limit).toBe(0.25);

        // An edit the API refuses shows its message beside the limit field.
        const patched = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets/${stored!.budget_id}`, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ limit: 0 }),
        });
        expect(patched.status).toBe(422);
        const badEdit = ((await patched.json()) as { error: { message: string } }).error;
        await card.getByRole("button", { name: `Edit budget ${name}` }).click();
        await card.getByLabel("Limit (USD)").fill("0");
        await card.getByRole("button", { name: "Save changes" }).click();
        await card.locator(".field-error").filter({ hasText: badEdit.message }).waitFor();
        await card.getByRole("button", { name: "Cancel", exact: true }).click();

        // A negative limit: the API's 422 message beside the limit field, not elsewhere.
        const bad = await apiError(g, { scope: "workspace", period: "daily", limit: -5 });
        expect([bad.status, bad.param]).toEqual([422, "limit"]);
        await f.getByLabel("Limit (USD)").fill("-5");
        await f.getByRole("button", { name: "Create budget" }).click();
        const limitError = f.locator("#f-limit-error");
        await limitError.waitFor();
        expect(await limitError.textContent()).toBe(bad.message);
        expect(await f.getByLabel("Limit (USD)").getAttribute("aria-invalid")).toBe("true");

        // A second workspace budget for the same period: the API's 409 as the form's error.
        const dup = await apiError(g, { scope: "workspace", period: "monthly", limit: 1 });
        expect(dup.status).toBe(409);
        await f.getByLabel("Period").selectOption("monthly");
        await f.getByLabel("Limit (USD)").fill("1");
        await f.getByRole("button", { name: "Create budget" }).click();
        await f.locator("p.error").filter({ hasText: dup.message }).waitFor();
        expect(await budgets(g)).toHaveLength(1);
        // Every attempt carried its own Idempotency-Key.
        expect(keys).toHaveLength(3);
        expect(new Set(keys).size).toBe(3);
        for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9_-]{1,255}$/);

        // A key whose name holds markup: chosen from the list, shown as text.
        await f.getByLabel("Scope").selectOption("api_key");
        const option = f.getByLabel("API key", { exact: true }).locator("option", { hasText: XSS });
        await f.getByLabel("API key", { exact: true }).selectOption(await option.getAttribute("value"));
        await f.getByLabel("Period").selectOption("daily");
        await f.getByLabel("Limit (USD)").fill("2.5");
        await f.getByRole("button", { name: "Create budget" }).click();
        const keyCard = page.getByRole("article", { name: new RegExp(`^Budget: API key ${XSS.replace(/[()]/g, "\\$&")}`) });
        await keyCard.waitFor();
        expect(await page.locator("img").count()).toBe(0);
        const all = await budgets(g);
        expect(all.find((b) => b.scope === "api_key")).toMatchObject({ scope_id: xssKeyId, period: "daily", limit: 2.5 });

        // Delete asks in the page, then removes the budget.
        await card.getByRole("button", { name: `Delete budget ${name}` }).click();
        await card
          .getByRole("group", { name: `Confirm: Delete budget ${name}` })
          .getByRole("button", { name: "Yes, delete" })
          .click();
        await page.getByRole("status").filter({ hasText: "Budget deleted." }).waitFor();
        await card.waitFor({ state: "detached" });
        expect((await budgets(g)).map((b) => b.scope)).toEqual(["api_key"]);
        expect(dialogs).toEqual([]);
        expect(errors).toEqual([]);
        expect(csp).toEqual([]);
      } finally {
        await page.close();
      }
    });

    test("without keys:read the key is named by ID; without budgets:write the page is read-only", async () => {
      const writer = await g.s.deps.repos.apiKeys.create({
        workspaceId: g.s.workspaceId,
        name: "budget writer",
        scopes: ["budgets:read", "budgets:write"],
      });
      const { page, dialogs, errors } = await openPage(browser);
      try {
        await signIn(page, g.s.url, writer.key, "#/budgets");
        const f = newForm(page);
        await f.getByLabel("Scope").selectOption("api_key");
        await f.getByLabel("API key ID").fill(xssKeyId);
        await f.getByLabel("Period").selectOption("weekly");
        await f.getByLabel("Limit (USD)").fill("3");
        await f.getByRole("button", { name: "Create budget" }).click();
        await page.getByRole("article", { name: `Budget: API key ${xssKeyId}, weekly` }).waitFor();

        await f.getByLabel("Scope").selectOption("byok");
        await f.getByLabel("BYOK provider").selectOption("beta");
        await f.getByLabel("Period").selectOption("monthly");
        await f.getByLabel("Limit (USD)").fill("4");
        await f.getByLabel("Include BYOK spend").check();
        await f.getByRole("button", { name: "Create budget" }).click();
        await page.getByRole("article", { name: "Budget: BYOK provider beta (beta), monthly" }).waitFor();
        expect((await budgets(g)).find((b) => b.scope === "byok")).toMatchObject({ scope_id: "beta", include_byok: true, limit: 4 });
      } finally {
        await page.close();
      }

      const reader = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: "budget reader", scopes: ["budgets:read"] });
      const ro = await openPage(browser);
      try {
        await signIn(ro.page, g.s.url, reader.key, "#/budgets");
        await ro.page.getByText("lacks the budgets:write scope").waitFor();
        await ro.page.locator("meter").first().waitFor();
        expect(await ro.page.locator("article").count()).toBe((await budgets(g)).length);
        expect(await ro.page.getByRole("button", { name: /^(Edit|Delete) budget/ }).count()).toBe(0);
        expect(await newForm(ro.page).count()).toBe(0);
        expect([...dialogs, ...errors, ...ro.dialogs, ...ro.errors]).toEqual([]);
      } finally {
        await ro.page.close();
      }
    });

    test("by keyboard: Edit moves the cursor to the limit, a withdrawn question hands focus back", async () => {
      const { page, dialogs, errors } = await openPage(browser);
      try {
        await signIn(page, g.s.url, g.s.adminKey, "#/budgets");
        const edit = page.getByRole("button", { name: /^Edit budget/ }).first();
        const name = (await edit.getAttribute("aria-label"))!.replace(/^Edit budget /, "");
        await edit.focus();
        await page.keyboard.press("Enter");
        const card = page.getByRole("article", { name: `Budget: ${name}` });
        await card.getByLabel("Limit (USD)").waitFor();
        await page.waitForFunction(() => document.activeElement?.id.startsWith("limit-"), null, { timeout: 5_000 });
        await card.getByRole("button", { name: "Cancel", exact: true }).focus();
        await page.keyboard.press("Enter");
        await card.getByRole("button", { name: `Edit budget ${name}` }).waitFor();
        await focusOn(page, `Edit budget ${name}`);

        await page.keyboard.press("Tab");
        await focusOn(page, `Delete budget ${name}`);
        await page.keyboard.press("Enter");
        await card.getByRole("button", { name: "Yes, delete" }).waitFor();
        await focusOn(page, "Yes, delete");
        await page.keyboard.press("Escape");
        await card.getByRole("button", { name: "Yes, delete" }).waitFor({ state: "detached" });
        await focusOn(page, `Delete budget ${name}`);
        expect((await budgets(g)).length).toBeGreaterThan(0);
        expect([...dialogs, ...errors]).toEqual([]);
      } finally {
        await page.close();
      }
    });

    test("a revoked key keeps its budget, named as revoked, and is not offered for a new one", async () => {
      const gone = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: "short-lived", scopes: [] });
      const w = `/v1/workspaces/${g.s.workspaceId}`;
      const made = await g.s.fetch(`${w}/budgets`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ scope: "api_key", scope_id: gone.row.id, period: "monthly", limit: 7 }),
      });
      expect(made.status).toBe(201);
      expect((await g.s.fetch(`${w}/api-keys/${gone.row.id}`, { method: "DELETE" })).status).toBeLessThan(300);
      const { page, dialogs, errors } = await openPage(browser);
      try {
        await signIn(page, g.s.url, g.s.adminKey, "#/budgets");
        await page.getByRole("article", { name: /^Budget: API key short-lived \(.*, revoked\), monthly$/ }).waitFor();
        const f = newForm(page);
        await f.getByLabel("Scope").selectOption("api_key");
        const options = await f.getByLabel("API key", { exact: true }).locator("option").allTextContents();
        expect(options.some((o) => o.startsWith(XSS))).toBe(true);
        expect(options.some((o) => o.startsWith("short-lived"))).toBe(false);
        expect([...dialogs, ...errors]).toEqual([]);
      } finally {
        await page.close();
      }
    });

    test("at 390×844 the page does not scroll sideways", async () => {
      const { page, dialogs, errors } = await openPage(browser, { width: 390, height: 844 });
      try {
        await signIn(page, g.s.url, g.s.adminKey, "#/budgets");
        await page.locator("meter").first().waitFor();
        await newForm(page).getByLabel("Scope").selectOption("api_key");
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await page
          .getByRole("button", { name: /^Edit budget/ })
          .first()
          .click();
        await page
          .getByRole("button", { name: /^Delete budget/ })
          .first()
          .click();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        expect([...dialogs, ...errors]).toEqual([]);
      } finally {
        await page.close();
      }
    });
  });
}
