// The console's form fields keep what was typed when the page re-renders around them (a list reloading
// after another form's save), and a form's reset (after a save, or a Reset or Clear button) empties them again.
// The UI does not depend on the database, so this runs on SQLite only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, expectClean, launch, openPage, signIn } from "./browser";

/** Runs `body` on a fresh page and fails on any page error, dialog or CSP report it caused. */
async function onPage(browser: Browser, body: (page: Page) => Promise<void>) {
  const w = await openPage(browser);
  try {
    await body(w.page);
    expectClean(w);
  } finally {
    await w.page.close();
  }
}

describe.skipIf(!canRun)("console form fields", () => {
  let g: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    g = await startGateway({ db: "sqlite" });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await g?.stop();
  });

  test("a value typed in one form survives the page re-rendering after another form's save; a save empties its own form", async () => {
    await onPage(browser, async (page) => {
      await signIn(page, g.s.url, g.s.adminKey, "#/members");
      const add = page.getByRole("form", { name: "Add member" });
      const invite = page.getByRole("form", { name: "Invite someone" });
      await add.getByLabel("Email").fill("half-typed@example.com");
      await add.getByLabel("Role").selectOption("viewer");

      await invite.getByLabel("Email").fill("guest@example.com");
      await invite.getByLabel("Expires in (days)").fill("3");
      await invite.getByRole("button", { name: "Send invite" }).click();
      // The page says so and reloads both lists: every section re-renders.
      await page.getByRole("status").filter({ hasText: "Invite for guest@example.com created." }).waitFor();
      await page.locator("td", { hasText: "guest@example.com" }).waitFor();
      expect(await add.getByLabel("Email").inputValue()).toBe("half-typed@example.com");
      expect(await add.getByLabel("Role").inputValue()).toBe("viewer");
      // The saved form is empty again, its role back to the default.
      expect(await invite.getByLabel("Email").inputValue()).toBe("");
      expect(await invite.getByLabel("Expires in (days)").inputValue()).toBe("");
      expect(await invite.getByLabel("Role").inputValue()).toBe("member");

      await add.getByRole("button", { name: "Add member" }).click();
      await page.getByRole("status").filter({ hasText: "half-typed@example.com added as viewer." }).waitFor();
      expect(await add.getByLabel("Email").inputValue()).toBe("");
      expect(await add.getByLabel("Role").inputValue()).toBe("member");
    });
  });

  test("a form whose page holds its values empties after a save, however short the typing", async () => {
    await onPage(browser, async (page) => {
      await signIn(page, g.s.url, g.s.adminKey, "#/api-keys");
      const create = page.getByRole("form", { name: "Create an API key" });
      // One keystroke: the page's value goes from "" to "k" and back to "" after the save.
      await create.getByLabel("usage:read", { exact: true }).check();
      await create.getByLabel("Name").pressSequentially("k");
      await create.getByRole("button", { name: "Create key" }).click();
      await page.locator("[data-new-key]").waitFor();
      expect(await create.getByLabel("Name").inputValue()).toBe("");
    });
  });

  test("the request log's Clear filters empties an applied filter and text typed but not applied", async () => {
    await onPage(browser, async (page) => {
      await signIn(page, g.s.url, g.s.adminKey, "#/requests");
      const filters = page.getByRole("form", { name: "Filter requests" });
      await filters.getByLabel("Model").fill("no-such-model");
      await filters.getByRole("button", { name: "Apply filters" }).click();
      await page.waitForFunction(() => location.hash.includes("no-such-model"), null, { timeout: 5_000 });
      await filters.getByLabel("Provider").fill("typed-not-applied");
      await filters.getByRole("button", { name: "Clear filters" }).click();
      await page.waitForFunction(() => !location.hash.includes("no-such-model"), null, { timeout: 5_000 });
      expect(await filters.getByLabel("Model").inputValue()).toBe("");
      expect(await filters.getByLabel("Provider").inputValue()).toBe("");
    });
  });

  test("the audit log's Reset empties the filters it applied", async () => {
    await onPage(browser, async (page) => {
      // One event at least, so the unfiltered log shows a table.
      const made = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/members`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "audited@example.com", role: "viewer" }),
      });
      expect(made.status).toBe(201);
      await signIn(page, g.s.url, g.s.adminKey, "#/audit-log");
      const filters = page.getByRole("form", { name: "Audit log filters" });
      await filters.getByLabel("From (date)").fill("2030-01-02");
      await filters.getByLabel("Per page").selectOption("25");
      await filters.getByRole("button", { name: "Apply filters" }).click();
      await page.getByText("No audit events match these filters.").waitFor();
      expect(await filters.getByLabel("From (date)").inputValue()).toBe("2030-01-02");
      await filters.getByRole("button", { name: "Reset" }).click();
      await page.getByRole("table", { name: "Audit events" }).waitFor();
      expect(await filters.getByLabel("From (date)").inputValue()).toBe("");
      expect(await filters.getByLabel("Per page").inputValue()).toBe("50");
    });
  });
});
