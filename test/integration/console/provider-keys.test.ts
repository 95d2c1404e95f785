// The console's provider keys (BYOK) page in Chromium against a real gateway (SQLite and Postgres) whose
// mock upstream accepts one secret for provider alpha: a valid secret is saved and shows valid, a refused
// one shows the provider's refusal beside the secret and saves nothing, an unreachable provider is the
// form's error, a key is made default, disabled, enabled and deleted, and the secret never reaches the page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { maskSecret } from "../../../src/crypto/secret-box";
import { randomBase62 } from "../../../src/platform/ids";
import { testDatabaseKinds } from "../../support/databases";
import { gatewayConfig } from "../../support/gateway";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { startServer, type InProcessServer } from "../../support/server";
import { canRun, launch, openPage, signIn, XSS, expectClean, type WatchedPage } from "./browser";

const kinds = await testDatabaseKinds();
const GOOD = `sk-good-${randomBase62(24)}`;
const TIERS = [
  { name: "free", rpm: 20, is_default: true },
  { name: "tier-1", rpm: 500 },
];

const addForm = (page: Page) => page.getByRole("form", { name: "Add a provider key" });
const row = (page: Page, name: string) => page.locator("tbody tr", { has: page.locator('td[data-col="Name"]', { hasText: name }) });
const cell = (page: Page, name: string, col: string) => row(page, name).locator(`td[data-col="${col}"]`);

async function add(page: Page, secret: string, name: string, tier = ""): Promise<void> {
  const f = addForm(page);
  await f.getByLabel("Provider", { exact: true }).selectOption("alpha");
  await f.getByLabel("Secret").fill(secret);
  await f.getByLabel("Name (optional)").fill(name);
  if (tier) await f.getByLabel("Account tier").selectOption(tier);
  await f.getByRole("button", { name: "Validate and save" }).click();
}

const clean = expectClean;

describe.skipIf(!canRun)("console provider keys", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const kind of kinds) {
    describe(`on ${kind}`, () => {
      let mock: MockUpstream;
      let s: InProcessServer;
      beforeAll(async () => {
        mock = await startMockUpstream({ apiKeys: { alpha: GOOD } });
        const base = gatewayConfig(mock);
        const alpha = { ...base.providers.alpha, display_name: "Alpha Cloud", tiers: TIERS };
        s = await startServer({ db: kind, configFile: { ...base, providers: { ...base.providers, alpha } } });
      });
      afterAll(async () => {
        await s?.stop();
        await mock?.stop();
      });
      const keys = async () => ((await (await s.fetch(`/v1/workspaces/${s.workspaceId}/byok-keys`)).json()) as any).byok_keys as any[];
      const create = (body: Record<string, unknown>) =>
        s.fetch(`/v1/workspaces/${s.workspaceId}/byok-keys`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });

      test("a valid secret is checked with the provider, saved and shown valid; the secret never reaches the page", async () => {
        const w = await openPage(browser);
        const { page } = w;
        try {
          await signIn(page, s.url, s.adminKey, "#/provider-keys");
          await addForm(page).getByLabel("Provider", { exact: true }).selectOption("alpha");
          await addForm(page).getByLabel("Account tier").locator('option[value="tier-1"]').waitFor({ state: "attached" });
          const seen = mock.requests.length;
          await add(page, GOOD, "main", "tier-1");
          await page.getByRole("status").filter({ hasText: "Alpha Cloud accepted the key" }).waitFor();
          expect(mock.requests.slice(seen).some((r) => r.route === "models" && r.headers.authorization === `Bearer ${GOOD}`)).toBe(true);
          expect(await cell(page, "main", "Validation").textContent()).toBe("valid");
          expect(await cell(page, "main", "Default").textContent()).toBe("yes");
          expect(await cell(page, "main", "Tier").textContent()).toBe("tier-1 (chosen)");
          expect(await cell(page, "main", "Prefix").textContent()).toBe(maskSecret(GOOD));
          expect(await addForm(page).getByLabel("Secret").inputValue()).toBe("");
          const html = await page.content();
          expect(html).not.toContain(GOOD);
          expect(html).not.toContain(GOOD.slice(4, -4));
          expect((await keys()).filter((k) => k.name === "main")).toHaveLength(1);
          clean(w);
        } finally {
          await page.close();
        }
      });

      test("a refused secret shows the provider's refusal beside the secret and saves nothing; an unreachable provider is the form's error", async () => {
        const refused = (await (await create({ provider: "alpha", api_key: "sk-wrong-0123456789" })).json()) as any;
        expect(refused.error).toMatchObject({ code: "invalid_provider_credentials", param: "api_key" });
        const before = (await keys()).length;
        const w = await openPage(browser);
        const { page } = w;
        try {
          await signIn(page, s.url, s.adminKey, "#/provider-keys");
          const bad = `sk-wrong-${randomBase62(20)}`;
          await add(page, bad, "refused");
          await addForm(page).locator("#pk-secret-error").filter({ hasText: refused.error.message }).waitFor();
          expect(await addForm(page).getByLabel("Secret").getAttribute("aria-invalid")).toBe("true");
          expect(await row(page, "refused").count()).toBe(0);
          expect((await keys()).length).toBe(before);
          expect(await page.content()).not.toContain(bad);

          mock.setScript({ provider: "alpha", route: "models" }, { kind: "error", status: 503, message: "overloaded" });
          try {
            await addForm(page).getByLabel("Secret").fill(GOOD);
            await addForm(page).getByRole("button", { name: "Validate and save" }).click();
            await addForm(page).locator("p.error[role=alert]").filter({ hasText: "could not validate the key right now" }).waitFor();
            expect(await addForm(page).locator("#pk-secret-error").count()).toBe(0);
          } finally {
            mock.reset();
          }
          expect((await keys()).length).toBe(before);
          clean(w);
        } finally {
          await page.close();
        }
      });

      test("make default, disable, enable and delete (confirmed in the page); a name holding markup is text", async () => {
        const first = (await (await create({ provider: "alpha", api_key: GOOD, name: "first-of-two" })).json()) as any;
        const second = (await (await create({ provider: "alpha", api_key: GOOD, name: XSS, is_default: false })).json()) as any;
        const w = await openPage(browser);
        const { page } = w;
        const get = async (id: string) => (await keys()).find((k) => k.id === id);
        try {
          await signIn(page, s.url, s.adminKey, "#/provider-keys");
          await row(page, XSS).waitFor();
          expect(await page.locator("img").count()).toBe(0);
          await row(page, XSS).getByRole("button", { name: "Make" }).click();
          await cell(page, XSS, "Default").filter({ hasText: "yes" }).waitFor();
          expect(await cell(page, "first-of-two", "Default").textContent()).toBe("no");
          expect((await get(second.id)).is_default).toBe(true);
          expect((await get(first.id)).is_default).toBe(false);

          await row(page, XSS).getByRole("button", { name: "Disable" }).click();
          await cell(page, XSS, "Disabled").filter({ hasText: "yes" }).waitFor();
          expect((await get(second.id)).disabled).toBe(true);
          await row(page, XSS).getByRole("button", { name: "Enable" }).click();
          await cell(page, XSS, "Disabled").filter({ hasText: "no" }).waitFor();
          expect((await get(second.id)).disabled).toBe(false);

          await row(page, XSS).getByRole("button", { name: "Delete" }).click();
          await row(page, XSS).getByRole("group").getByRole("button", { name: "Cancel" }).click();
          expect(await get(second.id)).toBeDefined();
          await row(page, XSS).getByRole("button", { name: "Delete" }).click();
          await row(page, XSS).getByRole("button", { name: "Yes, delete" }).click();
          await row(page, XSS).waitFor({ state: "detached" });
          expect(await get(second.id)).toBeUndefined();
          expect(await page.locator("img").count()).toBe(0);
          clean(w);
        } finally {
          await page.close();
        }
      });

      test("a key without byok:write sees the list read-only, with a note naming the scope", async () => {
        const { key } = await s.deps.repos.apiKeys.create({ workspaceId: s.workspaceId, name: "byok-reader", scopes: ["byok:read"] });
        await create({ provider: "alpha", api_key: GOOD, name: "listed" });
        const w = await openPage(browser);
        const { page } = w;
        try {
          await signIn(page, s.url, key, "#/provider-keys");
          await page.getByRole("note").filter({ hasText: "byok:write" }).waitFor();
          await row(page, "listed").waitFor();
          expect(await addForm(page).count()).toBe(0);
          expect(await page.locator("tbody button").count()).toBe(0);
          clean(w);
        } finally {
          await page.close();
        }
      });

      test("at 390×844 the form, the list and a confirmation fit without sideways scrolling", async () => {
        await create({ provider: "alpha", api_key: GOOD, name: `phone ${"y".repeat(80)}`, is_default: false });
        const w = await openPage(browser, { width: 390, height: 844 });
        const { page } = w;
        const width = () => page.evaluate(() => document.documentElement.scrollWidth);
        try {
          await signIn(page, s.url, s.adminKey, "#/provider-keys");
          await row(page, "phone").waitFor();
          expect(await width()).toBeLessThanOrEqual(390);
          await row(page, "phone").getByRole("button", { name: "Delete" }).click();
          await row(page, "phone").getByRole("button", { name: "Yes, delete" }).waitFor();
          expect(await width()).toBeLessThanOrEqual(390);
          clean(w);
        } finally {
          await page.close();
        }
      });
    });
  }

  test("in shared mode an add and a delete say their propagation is pending (202)", async () => {
    const mock = await startMockUpstream({ apiKeys: { alpha: GOOD } });
    const s = await startServer({ env: { REDIS_URL: "redis://127.0.0.1:6379/0" }, configFile: gatewayConfig(mock) });
    const w = await openPage(browser);
    try {
      await signIn(w.page, s.url, s.adminKey, "#/provider-keys");
      await add(w.page, GOOD, "shared");
      await w.page.getByRole("status").filter({ hasText: "Propagation is pending (202)" }).waitFor();
      await row(w.page, "shared").getByRole("button", { name: "Delete" }).click();
      await row(w.page, "shared").getByRole("button", { name: "Yes, delete" }).click();
      await w.page.getByRole("status").filter({ hasText: "Deleted “shared”. Propagation is pending (202)" }).waitFor();
      clean(w);
    } finally {
      await w.page.close();
      await s.stop();
      await mock.stop();
    }
  });
});
