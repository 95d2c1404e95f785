// The Budgets page against a gateway in shared mode (REDIS_URL set), where budget writes answer 202 with
// propagation_status "pending": the page says the change is committed and still reaching other instances.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, launch, openPage, signIn } from "./browser";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379/0";

describe.skipIf(!canRun)("console budgets in shared mode (202)", () => {
  let g: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    g = await startGateway({ env: { REDIS_URL } });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await g?.stop();
  });

  test("create, edit and delete each say their propagation is pending", async () => {
    const probe = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ scope: "workspace", period: "weekly", limit: 1 }),
    });
    expect(probe.status).toBe(202);
    const { page, dialogs, errors } = await openPage(browser);
    const pending = (verb: string) =>
      page.getByRole("status").filter({ hasText: `Budget ${verb}. Other gateway instances apply it shortly (propagation pending` });
    try {
      await signIn(page, g.s.url, g.s.adminKey, "#/budgets");
      const f = page.getByRole("form", { name: "New budget" });
      await f.getByLabel("Period").selectOption("daily");
      await f.getByLabel("Limit (USD)").fill("5");
      await f.getByRole("button", { name: "Create budget" }).click();
      await pending("created").waitFor();
      const card = page.getByRole("article", { name: "Budget: Workspace, daily" });
      await card.getByRole("button", { name: "Edit budget Workspace, daily" }).click();
      await card.getByLabel("Limit (USD)").fill("6");
      await card.getByRole("button", { name: "Save changes" }).click();
      await pending("updated").waitFor();
      await card.locator('meter[aria-label="Workspace, daily: $0.000000 of $6.000000"]').waitFor();
      await card.getByRole("button", { name: "Delete budget Workspace, daily" }).click();
      await card.getByRole("button", { name: "Yes, delete" }).click();
      await pending("deleted").waitFor();
      await card.waitFor({ state: "detached" });
      expect([...dialogs, ...errors]).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
