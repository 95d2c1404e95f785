// The Members page in a real browser against a gateway on each database: add members, change a role,
// the API's errors beside their field (a bad email, a duplicate, demoting the last owner), remove with an
// in-page confirmation; invite someone and see the token once (copied, then gone, and it works); an
// address holding markup rendered as text; a read-only key; a phone-width layout without sideways scrolling.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { testDatabaseKinds } from "../../support/databases";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, launch, openPage, signIn, XSS } from "./browser";

const kinds = await testDatabaseKinds();
// The API's email pattern refuses whitespace, so the markup uses the slashes HTML accepts between attributes.
const XSS_EMAIL = `${XSS.replaceAll(" ", "/")}@example.com`;

type Json = Record<string, unknown>;

async function list(g: TestGateway, what: "members" | "invites"): Promise<Json[]> {
  const r = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/${what}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as Record<string, Json[]>)[what]!;
}

/** What the API itself answers, so the page is checked against the API's words. */
async function apiError(g: TestGateway, method: string, path: string, body: unknown): Promise<{ message: string; param?: string }> {
  const r = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(r.status).toBeGreaterThanOrEqual(400);
  return ((await r.json()) as { error: { message: string; param?: string } }).error;
}

async function add(page: Page, email: string, role: string) {
  const f = page.getByRole("form", { name: "Add member" });
  await f.getByLabel("Email").fill(email);
  await f.getByLabel("Role").selectOption(role);
  await f.getByRole("button", { name: "Add member" }).click();
}

const row = (page: Page, table: string, text: string) =>
  page
    .getByRole("table", { name: table })
    .locator("tbody tr")
    .filter({ has: page.locator('td[data-col="Email"]', { hasText: text }) });

for (const kind of kinds) {
  describe.skipIf(!canRun)(`console members on ${kind}`, () => {
    let g: TestGateway;
    let browser: Browser;

    beforeAll(async () => {
      g = await startGateway({ db: kind });
      browser = await launch();
    });
    afterAll(async () => {
      await browser?.close();
      await g?.stop();
    });

    test("add, change a role, errors beside their field, remove; markup in an address is text", async () => {
      const { page, dialogs, errors, csp } = await openPage(browser);
      try {
        await signIn(page, g.s.url, g.s.adminKey, "#/members");
        await page.getByText("No members yet.").waitFor();
        await add(page, "owner@example.com", "owner");
        await row(page, "Members", "owner@example.com").waitFor();

        // The plain payload is no email address: the API's message beside the email field.
        const bad = await apiError(g, "POST", "/members", { email: XSS });
        expect(bad.param).toBe("email");
        await add(page, XSS, "member");
        const emailError = page.getByRole("form", { name: "Add member" }).locator("#f-email-error");
        await emailError.waitFor();
        expect(await emailError.textContent()).toBe(bad.message);

        await add(page, XSS_EMAIL, "member");
        const xssRow = row(page, "Members", XSS_EMAIL);
        await xssRow.waitFor();
        expect(await xssRow.locator('td[data-col="Email"]').textContent()).toBe(XSS_EMAIL);
        expect(await page.locator("img").count()).toBe(0);
        expect((await list(g, "members")).map((m) => [m.email, m.role])).toEqual([
          ["owner@example.com", "owner"],
          [XSS_EMAIL, "member"],
        ]);

        // A duplicate: the API's message beside the email field.
        const dup = await apiError(g, "POST", "/members", { email: "owner@example.com" });
        await add(page, "owner@example.com", "viewer");
        await page.getByRole("form", { name: "Add member" }).locator("#f-email-error").filter({ hasText: dup.message }).waitFor();

        // Change a role.
        const roleForm = page.getByRole("form", { name: `Role of ${XSS_EMAIL}` });
        await roleForm.getByLabel(`Role of ${XSS_EMAIL}`, { exact: true }).selectOption("viewer");
        await roleForm.getByRole("button", { name: `Save role of ${XSS_EMAIL}` }).click();
        await page
          .getByRole("status")
          .filter({ hasText: `${XSS_EMAIL} is now viewer.` })
          .waitFor();
        expect((await list(g, "members")).find((m) => m.email === XSS_EMAIL)!.role).toBe("viewer");

        // Demoting the last owner: the API's message beside that row's role.
        const owner = (await list(g, "members")).find((m) => m.email === "owner@example.com")!;
        const last = await apiError(g, "PATCH", `/members/${owner.member_id}`, { role: "admin" });
        const ownerForm = page.getByRole("form", { name: "Role of owner@example.com" });
        await ownerForm.getByLabel("Role of owner@example.com", { exact: true }).selectOption("admin");
        await ownerForm.getByRole("button", { name: "Save role of owner@example.com" }).click();
        await ownerForm.locator(".field-error").filter({ hasText: last.message }).waitFor();

        // Remove asks in the page first.
        await xssRow.getByRole("button", { name: `Remove member ${XSS_EMAIL}` }).click();
        await xssRow.getByRole("button", { name: "Yes, remove" }).click();
        await page
          .getByRole("status")
          .filter({ hasText: `${XSS_EMAIL} removed.` })
          .waitFor();
        await xssRow.waitFor({ state: "detached" });
        expect((await list(g, "members")).map((m) => m.email)).toEqual(["owner@example.com"]);
        expect([...dialogs, ...errors, ...csp]).toEqual([]);
      } finally {
        await page.close();
      }
    });

    test("invite: the token is shown once with Copy, works once accepted; withdraw; a bad expiry beside its field", async () => {
      const { page, dialogs, errors } = await openPage(browser);
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: g.s.url });
      try {
        await signIn(page, g.s.url, g.s.adminKey, "#/members");
        const f = page.getByRole("form", { name: "Invite someone" });
        const badDays = await apiError(g, "POST", "/invites", { email: "x@example.com", expires_in_days: 40 });
        await f.getByLabel("Email").fill("invitee@example.com");
        await f.getByLabel("Expires in (days)").fill("40");
        await f.getByRole("button", { name: "Send invite" }).click();
        await f.locator("#invite-days-error").filter({ hasText: badDays.message }).waitFor();
        expect(await list(g, "invites")).toEqual([]);

        await f.getByLabel("Role").selectOption("admin");
        await f.getByLabel("Expires in (days)").fill("3");
        await f.getByRole("button", { name: "Send invite" }).click();
        const once = page.getByRole("region", { name: "New invite token" });
        await once.waitFor();
        await once.getByText("It is shown only once").waitFor();
        const token = (await once.locator("code").textContent())!;
        expect(token).toMatch(/^inv_[A-Za-z0-9]{40}$/);
        await once.getByRole("button", { name: "Copy" }).click();
        await once.getByText("Copied.").waitFor();
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
        await row(page, "Invites", "invitee@example.com").getByText("Open until").waitFor();
        const [stored] = await list(g, "invites");
        expect(stored).toMatchObject({ email: "invitee@example.com", role: "admin", accepted_at: null });
        expect(JSON.stringify(stored)).not.toContain(token);

        await once.getByRole("button", { name: "Done" }).click();
        await once.waitFor({ state: "detached" });
        expect(await page.content()).not.toContain(token);
        await page.reload();
        await row(page, "Invites", "invitee@example.com").waitFor();
        expect(await page.content()).not.toContain(token);

        // The token shown is the real one: accepting it adds the member.
        const accepted = await g.s.fetch("/v1/invites/accept", {
          key: null,
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ token }),
        });
        expect(accepted.status).toBe(200);
        await page.reload();
        await row(page, "Members", "invitee@example.com").waitFor();
        await row(page, "Invites", "invitee@example.com").getByText("Accepted").waitFor();
        expect(
          await row(page, "Invites", "invitee@example.com")
            .getByRole("button", { name: /Withdraw/ })
            .count(),
        ).toBe(0);

        // Withdraw an open invite.
        await f.getByLabel("Email").fill("later@example.com");
        await f.getByRole("button", { name: "Send invite" }).click();
        await once.waitFor();
        const later = row(page, "Invites", "later@example.com");
        await later.getByRole("button", { name: "Withdraw invite for later@example.com" }).click();
        await later.getByRole("button", { name: "Yes, withdraw" }).click();
        await later.waitFor({ state: "detached" });
        expect((await list(g, "invites")).map((i) => i.email)).toEqual(["invitee@example.com"]);
        expect([...dialogs, ...errors]).toEqual([]);
      } finally {
        await page.close();
      }
    });

    test("without members:write the page is read-only and names the scope", async () => {
      const reader = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: "member reader", scopes: ["members:read"] });
      const { page, dialogs, errors } = await openPage(browser);
      try {
        await signIn(page, g.s.url, reader.key, "#/members");
        await page.getByText("lacks the members:write scope").waitFor();
        await row(page, "Members", "owner@example.com").waitFor();
        await page.getByRole("table", { name: "Invites" }).waitFor();
        expect(await page.getByRole("form").count()).toBe(0);
        expect(await page.getByRole("button", { name: /^(Remove|Withdraw|Save)/ }).count()).toBe(0);
        expect([...dialogs, ...errors]).toEqual([]);
      } finally {
        await page.close();
      }
    });

    test("at 390×844 the page does not scroll sideways, a new token included", async () => {
      const { page, dialogs, errors } = await openPage(browser, { width: 390, height: 844 });
      try {
        await signIn(page, g.s.url, g.s.adminKey, "#/members");
        await add(page, `${"a".repeat(60)}@example.com`, "member");
        await row(page, "Members", "a".repeat(60)).waitFor();
        const f = page.getByRole("form", { name: "Invite someone" });
        await f.getByLabel("Email").fill("phone@example.com");
        await f.getByRole("button", { name: "Send invite" }).click();
        await page.getByRole("region", { name: "New invite token" }).waitFor();
        await row(page, "Members", "owner@example.com")
          .getByRole("button", { name: /^Remove/ })
          .click();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        expect([...dialogs, ...errors]).toEqual([]);
      } finally {
        await page.close();
      }
    });
  });
}
