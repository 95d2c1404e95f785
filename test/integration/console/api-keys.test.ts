// The console's API keys page in Chromium against a real gateway (SQLite and Postgres): a new key is shown
// once (it works, copies, and is gone from the page after dismissing or reloading), markup in a name is
// text, the API's errors sit beside their fields, edits and revocation reach the API, a key without
// keys:write reads only, a shared-mode write says its propagation is pending, and a phone width fits.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { displayPrefix } from "../../../src/auth/key-format";
import { testDatabaseKinds } from "../../support/databases";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, launch, openPage, signIn, XSS, expectClean, type WatchedPage } from "./browser";

const kinds = await testDatabaseKinds();

const createForm = (page: Page) => page.getByRole("form", { name: "Create an API key" });
const row = (page: Page, name: string) => page.locator("tbody tr", { has: page.locator('td[data-col="Name"]', { hasText: name }) });

async function createKey(page: Page, name: string, scopes: string[], expires = ""): Promise<void> {
  const f = createForm(page);
  await f.getByLabel("Name").fill(name);
  for (const s of scopes) await f.getByLabel(s, { exact: true }).check();
  if (expires) await f.getByLabel("Expires (your local time)").fill(expires);
  await f.getByRole("button", { name: "Create key" }).click();
}

const me = (url: string, key: string) => fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });

const clean = expectClean;

describe.skipIf(!canRun)("console API keys", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const kind of kinds) {
    describe(`on ${kind}`, () => {
      let g: TestGateway;
      beforeAll(async () => {
        g = await startGateway({ db: kind });
      });
      afterAll(async () => {
        await g?.stop();
      });
      const keys = async (revoked = false) =>
        ((await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/api-keys?include_revoked=${revoked}`)).json()) as any)
          .api_keys as Record<string, unknown>[];

      test("create: the key is shown once, works, copies; a name holding markup is text; gone after dismiss and reload", async () => {
        const w = await openPage(browser);
        const { page } = w;
        try {
          await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: g.s.url });
          await signIn(page, g.s.url, g.s.adminKey, "#/api-keys");
          await createKey(page, XSS, ["usage:read", "routing:read"]);
          const shown = page.locator("[data-new-key]");
          await shown.waitFor();
          const key = (await shown.textContent())!;
          expect(key).toMatch(/^ak_[A-Za-z0-9]{32,}$/);
          await page.getByText("it will not be shown again").waitFor();
          const r = await me(g.s.url, key);
          expect(r.status).toBe(200);
          expect(await r.json()).toMatchObject({ name: XSS, scopes: ["routing:read", "usage:read"] });
          await row(page, XSS).waitFor();
          expect(await page.locator("img").count()).toBe(0);

          await page.getByRole("button", { name: "Copy", exact: true }).click();
          await page.getByRole("button", { name: "Copied", exact: true }).waitFor();
          expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

          expect(await page.content()).toContain(key);
          await page.getByRole("button", { name: "I have copied it: hide the key" }).click();
          await shown.waitFor({ state: "detached" });
          expect(await page.content()).not.toContain(key);
          expect(await row(page, XSS).locator('td[data-col="Prefix"]').textContent()).toBe(displayPrefix(key));
          expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).not.toContain(key);

          await createKey(page, "reloaded", ["usage:read"]);
          const second = (await shown.textContent())!;
          await page.reload();
          await row(page, "reloaded").waitFor();
          expect(await shown.count()).toBe(0);
          expect(await page.content()).not.toContain(second);
          clean(w);
        } finally {
          await page.close();
        }
      });

      test("the API's message sits beside the field its param names, and nothing is created", async () => {
        const before = (await keys()).length;
        const past = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/api-keys`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "past", scopes: ["usage:read"], expires_at: "2020-01-01T10:00:00.000Z" }),
        });
        const pastError = ((await past.json()) as any).error;
        expect(pastError.param).toBe("expires_at");
        const w = await openPage(browser);
        const { page } = w;
        try {
          await signIn(page, g.s.url, g.s.adminKey, "#/api-keys");
          await createKey(page, "past", ["usage:read"], "2020-01-01T10:00");
          const f = createForm(page);
          await f.locator("#ak-new-expires-error").filter({ hasText: pastError.message }).waitFor();
          expect(await f.getByLabel("Expires (your local time)").getAttribute("aria-invalid")).toBe("true");
          expect(await f.locator("#ak-new-name-error").count()).toBe(0);

          await f.getByLabel("Name").fill("");
          await f.getByLabel("Expires (your local time)").fill("");
          await f.getByRole("button", { name: "Create key" }).click();
          await f.locator("#ak-new-name-error").filter({ hasText: "Invalid 'name'" }).waitFor();
          expect(await f.locator("#ak-new-expires-error").count()).toBe(0);
          // What was picked survives the failed submit.
          expect(await f.getByLabel("usage:read", { exact: true }).isChecked()).toBe(true);

          await f.getByLabel("Name").fill("no scopes");
          await f.getByLabel("usage:read", { exact: true }).uncheck();
          await f.getByRole("button", { name: "Create key" }).click();
          await f.locator("#ak-new-scopes-error").filter({ hasText: "Invalid 'scopes'" }).waitFor();
          expect((await keys()).length).toBe(before);
          clean(w);
        } finally {
          await page.close();
        }
      });

      test("edit sends the change; revoke asks in the page, then the key leaves the list and stops working", async () => {
        const made = (await (
          await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/api-keys`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: "to-edit", scopes: ["usage:read"] }),
          })
        ).json()) as any;
        const w = await openPage(browser);
        const { page } = w;
        try {
          await signIn(page, g.s.url, g.s.adminKey, "#/api-keys");
          await row(page, "to-edit").getByRole("button", { name: "Edit" }).click();
          const f = page.getByRole("form", { name: "Edit the API key" });
          await f.getByLabel("Expires (your local time)").fill("2020-01-01T10:00");
          await f.getByRole("button", { name: "Save changes" }).click();
          await f.locator("#ak-edit-expires-error").filter({ hasText: "Invalid 'expires_at'" }).waitFor();
          await f.getByLabel("Expires (your local time)").fill("");
          await f.getByLabel("Name").fill("edited");
          await f.getByLabel("budgets:read", { exact: true }).check();
          await f.getByRole("button", { name: "Save changes" }).click();
          await page.getByRole("status").filter({ hasText: "Saved “edited”." }).waitFor();
          const after = (await keys()).find((k) => k.api_key_id === made.api_key_id)!;
          expect(after).toMatchObject({ name: "edited", scopes: ["usage:read", "budgets:read"], expires_at: null });

          await row(page, "edited").getByRole("button", { name: "Revoke" }).click();
          const ask = row(page, "edited").getByRole("group", { name: /Revoke “edited”\?/ });
          await ask.getByRole("button", { name: "Cancel" }).click();
          expect((await me(g.s.url, made.key)).status).toBe(200);
          // By keyboard: the confirmation takes the focus, so Enter twice revokes.
          await row(page, "edited").getByRole("button", { name: "Revoke" }).focus();
          await page.keyboard.press("Enter");
          await ask.getByRole("button", { name: "Yes, revoke" }).waitFor();
          await page.waitForFunction(() => document.activeElement?.textContent === "Yes, revoke", null, { timeout: 5_000 });
          await page.keyboard.press("Enter");
          await row(page, "edited").waitFor({ state: "detached" });
          expect((await me(g.s.url, made.key)).status).toBe(401);
          await page.getByLabel("Include revoked keys").check();
          await row(page, "edited").locator('td[data-col="Revoked"] time').waitFor();
          expect(await row(page, "edited").getByRole("button").count()).toBe(0);
          clean(w);
        } finally {
          await page.close();
        }
      });

      test("a key without keys:write sees the list read-only, with a note naming the scope", async () => {
        const { key } = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: "reader", scopes: ["keys:read"] });
        const w = await openPage(browser);
        const { page } = w;
        try {
          await signIn(page, g.s.url, key, "#/api-keys");
          await page.getByRole("note").filter({ hasText: "keys:write" }).waitFor();
          await row(page, "reader").waitFor();
          expect(await createForm(page).count()).toBe(0);
          expect(await page.locator("tbody button").count()).toBe(0);
          clean(w);
        } finally {
          await page.close();
        }
      });

      test("a key cannot revoke a wider key: the API's refusal is said above the list, and the key stays", async () => {
        const { key } = await g.s.deps.repos.apiKeys.create({
          workspaceId: g.s.workspaceId,
          name: "keys-only",
          scopes: ["keys:read", "keys:write"],
        });
        const w = await openPage(browser);
        const { page } = w;
        try {
          await signIn(page, g.s.url, key, "#/api-keys");
          const f = createForm(page);
          expect(await f.getByRole("checkbox", { name: "usage:read (your key lacks it)", exact: true }).isDisabled()).toBe(true);
          expect(await f.getByLabel("keys:read", { exact: true }).isDisabled()).toBe(false);
          await row(page, "admin").getByRole("button", { name: "Revoke" }).click();
          await row(page, "admin").getByRole("button", { name: "Yes, revoke" }).click();
          await page
            .getByRole("alert")
            .filter({ hasText: "Could not revoke “admin”: This API key holds scopes the calling key lacks" })
            .waitFor();
          expect((await me(g.s.url, g.s.adminKey)).status).toBe(200);
          await row(page, "admin").getByRole("button", { name: "Revoke" }).waitFor();
          clean(w);
        } finally {
          await page.close();
        }
      });

      test("at 390×844 the page, a new key and a confirmation fit without sideways scrolling", async () => {
        const w = await openPage(browser, { width: 390, height: 844 });
        const { page } = w;
        const width = () => page.evaluate(() => document.documentElement.scrollWidth);
        try {
          await signIn(page, g.s.url, g.s.adminKey, "#/api-keys");
          await createKey(page, `phone ${"x".repeat(80)}`, ["usage:read"]);
          await page.locator("[data-new-key]").waitFor();
          expect(await width()).toBeLessThanOrEqual(390);
          await row(page, "phone").getByRole("button", { name: "Revoke" }).click();
          await page.getByRole("button", { name: "Yes, revoke" }).waitFor();
          expect(await width()).toBeLessThanOrEqual(390);
          clean(w);
        } finally {
          await page.close();
        }
      });
    });
  }

  test("in shared mode a create says its propagation is pending (202)", async () => {
    const g = await startGateway({ env: { REDIS_URL: "redis://127.0.0.1:6379/0" } });
    const w = await openPage(browser);
    try {
      await signIn(w.page, g.s.url, g.s.adminKey, "#/api-keys");
      await createKey(w.page, "shared", ["usage:read"]);
      await w.page.locator(".ak-new-key").getByText("Propagation is pending (202)").waitFor();
      clean(w);
    } finally {
      await w.page.close();
      await g.stop();
    }
  });
});
