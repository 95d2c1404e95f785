// The console's Routing and Audit log pages in a real browser against a gateway with a mock upstream, on
// SQLite and Postgres: a routing default saved and read back, the API's validation message beside its
// field, the live route table, a read-only key, the audit trail of those changes (markup in a name stays
// text), paging, and no sideways overflow on a phone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { testDatabaseKinds } from "../../support/databases";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, focusOn, launch, openPage, signIn, XSS, type WatchedPage } from "./browser";

const dialects = canRun ? await testDatabaseKinds() : [];

async function chat(g: TestGateway): Promise<void> {
  const r = await g.s.fetch("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "acme/chat", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(r.status).toBe(200);
}

/** Runs `body` on a fresh page and fails on any page error or dialog it caused. */
async function onPage(browser: Browser, body: (w: WatchedPage) => Promise<void>, viewport?: { width: number; height: number }) {
  const w = await openPage(browser, viewport);
  try {
    await body(w);
    expect(w.errors).toEqual([]);
    expect(w.dialogs).toEqual([]);
  } finally {
    await w.page.close();
  }
}

const noOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

for (const db of dialects) {
  describe(`console routing and audit log on ${db}`, () => {
    let g: TestGateway;
    let browser: Browser;
    let defaultsPath: string;

    beforeAll(async () => {
      g = await startGateway({ db });
      defaultsPath = `/v1/workspaces/${g.s.workspaceId}/routing-defaults`;
      browser = await launch();
    });
    afterAll(async () => {
      await browser?.close();
      await g?.stop();
    });

    test("optimize changed in the form is saved, sent alone, and reads back after a reload", async () => {
      const before = (await (await g.s.fetch(defaultsPath)).json()) as { optimize: string };
      const next = before.optimize === "ttft" ? "balanced" : "ttft";
      await onPage(browser, async ({ page }) => {
        await signIn(page, g.s.url, g.s.adminKey, "#/routing");
        const optimize = page.getByLabel("Optimize", { exact: true });
        await optimize.waitFor();
        expect(await optimize.inputValue()).toBe(before.optimize);
        await optimize.selectOption(next);
        await page.getByRole("button", { name: "Save changes" }).click();
        await page.getByRole("status").filter({ hasText: "Saved optimize. Applied." }).waitFor();

        await page.reload();
        await page.getByLabel("Optimize", { exact: true }).waitFor();
        expect(await page.getByLabel("Optimize", { exact: true }).inputValue()).toBe(next);
      });
      const after = (await (await g.s.fetch(defaultsPath)).json()) as Record<string, unknown>;
      expect(after.optimize).toBe(next);
      expect(after.max_fallback_attempts).toBe(19);
      const audit = (await (
        await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/audit-logs?type=routing_defaults.updated&limit=1`)
      ).json()) as { events: { data: unknown }[] };
      expect(audit.events[0]!.data).toEqual({ changes: { optimize: next } });
    });

    test("an out-of-range max_fallback_attempts shows the API's own message beside that field", async () => {
      await onPage(browser, async ({ page }) => {
        await signIn(page, g.s.url, g.s.adminKey, "#/routing");
        const input = page.getByLabel("Max fallback attempts");
        for (const bad of [0, 50]) {
          const api = await g.s.fetch(defaultsPath, {
            method: "PATCH",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ max_fallback_attempts: bad }),
          });
          expect(api.status).toBe(400);
          const { error } = (await api.json()) as { error: { message: string; param: string } };
          expect(error.param).toBe("max_fallback_attempts");

          await input.fill(String(bad));
          await page.getByRole("button", { name: "Save changes" }).click();
          const beside = page.locator(".field", { has: page.locator("#rd-max_fallback_attempts") }).locator(".field-error");
          await beside.filter({ hasText: error.message }).waitFor();
          expect(await beside.textContent()).toBe(error.message);
          expect(await input.getAttribute("aria-invalid")).toBe("true");
          expect(await input.inputValue()).toBe(String(bad));
        }
      });
      const stored = (await (await g.s.fetch(defaultsPath)).json()) as { max_fallback_attempts: number };
      expect(stored.max_fallback_attempts).toBe(19);
    });

    test("the route table lists every route and, after calls, their attempts; Refresh re-reads it", async () => {
      const health = (await (await g.s.fetch("/v1/routing/health")).json()) as { count: number };
      await onPage(browser, async ({ page }) => {
        await signIn(page, g.s.url, g.s.adminKey, "#/routing");
        const tableRows = page.getByRole("table", { name: "Route health" }).locator("tbody tr");
        await tableRows.first().waitFor();
        expect(await tableRows.count()).toBe(health.count);
        await page.getByText(`${health.count} of ${health.count} routes`).waitFor();

        await chat(g);
        await chat(g);
        const okOf = async () => {
          let ok = 0;
          for (const cell of await tableRows.filter({ hasText: "acme/chat" }).locator('td[data-col="Attempts"]').allTextContents())
            ok += Number(/(\d+) ok/.exec(cell)?.[1] ?? 0);
          return ok;
        };
        const deadline = Date.now() + 10_000;
        while ((await okOf()) < 2 && Date.now() < deadline) {
          await page.getByRole("button", { name: "Refresh", exact: true }).click();
          await page.getByRole("button", { name: "Refresh", exact: true }).waitFor();
        }
        expect(await okOf()).toBe(2);
        const measured = tableRows
          .filter({ hasText: "acme/chat" })
          .filter({ hasText: "1 ok" })
          .or(tableRows.filter({ hasText: "2 ok" }));
        expect(await measured.first().locator('td[data-col="Circuit"]').textContent()).toBe("closed");

        await page.getByLabel("Only routes with attempts").check();
        expect(await tableRows.count()).toBeLessThan(health.count);
        await page.getByLabel("Filter by model or provider").fill("gamma-chat");
        expect(await tableRows.count()).toBeLessThanOrEqual(1);
      });
    });

    test("a circuit opened by failures reads as text, with the last failure", async () => {
      g.mock.setScript({ provider: "delta" }, { kind: "error", status: 500 });
      type Health = { routes: { provider_model_id: string; circuit: { state: string } }[] };
      const state = async () =>
        ((await (await g.s.fetch("/v1/routing/health")).json()) as Health).routes.find((r) => r.provider_model_id === "delta-dual")!.circuit
          .state;
      for (let i = 0; i < 10 && (await state()) !== "open"; i++) {
        await g.s.fetch("/v1/chat/completions", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "acme/dual", messages: [{ role: "user", content: "hi" }] }),
        });
      }
      expect(await state()).toBe("open");
      await onPage(browser, async ({ page }) => {
        await signIn(page, g.s.url, g.s.adminKey, "#/routing");
        const row = page.getByRole("table", { name: "Route health" }).locator("tbody tr", { hasText: "delta-dual" });
        await row.waitFor();
        expect(await row.locator('td[data-col="Circuit"]').textContent()).toMatch(/^open until \d\d:\d\d:\d\d UTC, \d+ failures in a row$/);
        expect(await row.locator('td[data-col="Last failure"]').textContent()).toMatch(/^HTTP 500/);
      });
    });

    test("a key without routing:write sees the values read-only, the scope named, no save", async () => {
      const { key } = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: "reader", scopes: ["routing:read"] });
      const stored = (await (await g.s.fetch(defaultsPath)).json()) as { optimize: string };
      await onPage(browser, async ({ page }) => {
        await signIn(page, g.s.url, key, "#/routing");
        await page.getByText("Read-only: changing routing defaults needs the routing:write scope.").waitFor();
        expect(await page.locator('[data-field="Optimize"]').textContent()).toStartWith(`${stored.optimize}:`);
        expect(await page.getByRole("button", { name: "Save changes" }).count()).toBe(0);
        expect(await page.getByRole("button", { name: /Clear all/ }).count()).toBe(0);
        expect(await page.locator("form[aria-label='Routing defaults']").count()).toBe(0);
        await page.getByRole("table", { name: "Route health" }).waitFor();
      });
    });

    test("the audit log shows the routing change, filters by type, and rejects a backwards range beside its field", async () => {
      await onPage(browser, async ({ page }) => {
        await signIn(page, g.s.url, g.s.adminKey, "#/audit-log");
        const rows = page.getByRole("table", { name: "Audit events" }).locator("tbody tr");
        const change = rows.filter({ hasText: "routing_defaults.updated" }).filter({ hasText: /changes\.optimize: (ttft|balanced)/ });
        await change.first().waitFor();
        expect(await change.first().locator('td[data-col="Target"]').textContent()).toBe("this workspace");

        await page.getByLabel("Event type").selectOption("routing_defaults.updated");
        await page.getByRole("button", { name: "Apply filters" }).click();
        await page.getByText("1–1 of 1").waitFor();
        expect(await rows.count()).toBe(1);

        await page.getByLabel("Event type").selectOption("invite.accepted");
        await page.getByRole("button", { name: "Apply filters" }).click();
        await page.getByText("No audit events match these filters.").waitFor();
        expect(await rows.count()).toBe(0);

        await page.getByLabel("From (date)").fill("2030-01-02");
        await page.getByLabel("To (date, inclusive)").fill("2030-01-01");
        await page.getByRole("button", { name: "Apply filters" }).click();
        const beside = page.locator(".field", { has: page.locator("#al-end_date") }).locator(".field-error");
        await beside.waitFor();
        expect(await beside.textContent()).toBe("Invalid 'end_date': must not be before start_date.");
        await page.getByRole("button", { name: "Reset" }).click();
        await rows.first().waitFor();
      });
    });

    test("markup in a renamed key's name renders as text; Next pages through the log", async () => {
      const { row } = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: "plain", scopes: [] });
      const r = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/api-keys/${row.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: XSS }),
      });
      expect(r.status).toBe(200);
      for (let i = 0; i < 26; i++) {
        const p = await g.s.fetch(defaultsPath, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ min_success_rate: i / 100 }),
        });
        expect(p.status).toBe(200);
      }
      const total = ((await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/audit-logs?limit=1`)).json()) as { total: number }).total;
      await onPage(browser, async ({ page }) => {
        await signIn(page, g.s.url, g.s.adminKey, "#/audit-log");
        await page.getByLabel("Event type").selectOption("api_key.updated");
        await page.getByRole("button", { name: "Apply filters" }).click();
        const row = page.getByRole("table", { name: "Audit events" }).locator("tbody tr", { hasText: XSS });
        await row.waitFor();
        expect(await row.locator('td[data-col="Details"] li', { hasText: "name:" }).textContent()).toBe(`name: ${XSS}`);
        expect(await row.locator('td[data-col="Target"] .al-name').textContent()).toBe(XSS);
        expect(await page.locator("img").count()).toBe(0);

        await page.getByLabel("Event type").selectOption("");
        await page.getByLabel("Per page").selectOption("25");
        await page.getByRole("button", { name: "Apply filters" }).click();
        await page.getByText(`1–25 of ${total}`).waitFor();
        await page.getByRole("button", { name: "Next" }).click();
        await page.getByText(`26–${Math.min(50, total)} of ${total}`).waitFor();
        await page.getByRole("button", { name: "Previous" }).click();
        await page.getByText(`1–25 of ${total}`).waitFor();
      });
    });

    test("Clear all asks first, then resets every field to its built-in default", async () => {
      await onPage(browser, async ({ page }) => {
        await signIn(page, g.s.url, g.s.adminKey, "#/routing");
        await page.getByRole("button", { name: "Clear all…" }).click();
        // Focus moves onto Cancel, so the keyboard answers the question; Enter cancels and returns it.
        await focusOn(page, "Cancel");
        await page.keyboard.press("Enter");
        await page.getByRole("button", { name: "Clear all…" }).waitFor();
        await focusOn(page, "Clear all…");
        expect(((await (await g.s.fetch(defaultsPath)).json()) as { updated_at: unknown }).updated_at).not.toBeNull();
        await page.getByRole("button", { name: "Clear all…" }).click();
        await page.getByRole("button", { name: "Clear all defaults" }).click();
        await page.getByRole("status").filter({ hasText: "Cleared: every field is back to its built-in default. Applied." }).waitFor();
        expect(await page.getByLabel("Optimize", { exact: true }).inputValue()).toBe("cost-focus");
        expect(await page.getByLabel("Min success rate (0 to 1)").inputValue()).toBe("");
      });
      const after = (await (await g.s.fetch(defaultsPath)).json()) as Record<string, unknown>;
      expect(after).toMatchObject({ optimize: "cost-focus", min_success_rate: null, updated_at: null });
    });

    test("at 390×844 neither page overflows sideways", async () => {
      await onPage(
        browser,
        async ({ page }) => {
          await signIn(page, g.s.url, g.s.adminKey, "#/routing");
          await page.getByRole("table", { name: "Route health" }).waitFor();
          await page.getByLabel("Optimize", { exact: true }).waitFor();
          expect(await noOverflow(page)).toBeLessThanOrEqual(390);
          await page.goto(`${g.s.url}/console#/audit-log`);
          await page.getByRole("table", { name: "Audit events" }).waitFor();
          expect(await noOverflow(page)).toBeLessThanOrEqual(390);
        },
        { width: 390, height: 844 },
      );
    });
  });

  describe(`console routing defaults in shared mode on ${db}`, () => {
    let g: TestGateway;
    let browser: Browser;

    beforeAll(async () => {
      g = await startGateway({ db, env: { REDIS_URL: "redis://127.0.0.1:6379/0" } });
      browser = await launch();
    });
    afterAll(async () => {
      await browser?.close();
      await g?.stop();
    });

    test("a 202 answer says the change is applied here and propagation to the other instances is pending", async () => {
      await onPage(browser, async ({ page }) => {
        await signIn(page, g.s.url, g.s.adminKey, "#/routing");
        await page.getByLabel("Optimize", { exact: true }).selectOption("tps");
        await page.getByRole("button", { name: "Save changes" }).click();
        await page.getByRole("status").filter({ hasText: "Saved optimize. Propagation pending" }).waitFor();
        await page.getByRole("button", { name: "Clear all…" }).click();
        await page.getByRole("button", { name: "Clear all defaults" }).click();
        await page
          .getByRole("status")
          .filter({ hasText: "Cleared: every field is back to its built-in default. Propagation pending" })
          .waitFor();
      });
      expect(g.s.deps.management.routingDefaults.get(g.s.workspaceId).optimize).toBe("cost-focus");
    });
  });
}
