// The operator console in a real browser (Debian's Chromium driven by playwright-core) against a gateway
// with a mock upstream: sign in, the overview and the request log show the calls just made, a tag holding
// markup renders as text, and the page carries its Content-Security-Policy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, chatCall, launch, navLink, openPage, signIn, XSS } from "./browser";

describe.skipIf(!canRun)("console", () => {
  let g: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    g = await startGateway();
    for (const tags of [["plain"], [XSS]]) await chatCall(g, { gateway: { metadata: { tags } } });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await g?.stop();
  });

  test("GET / redirects to /console, served with a strict CSP", async () => {
    const root = await fetch(`${g.s.url}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/console");
    for (const path of ["/console", "/console/app.js", "/console/app.css"]) {
      const r = await fetch(`${g.s.url}${path}`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-security-policy")).toContain("script-src 'self'");
    }
    expect(await (await fetch(`${g.s.url}/console`)).text()).not.toMatch(/<script(?![^>]*\bsrc=)/);
  });

  test("sign in, overview, requests and a request's detail; markup in a tag renders as text", async () => {
    const { page, dialogs, errors } = await openPage(browser);
    try {
      await page.goto(`${g.s.url}/`);
      expect(page.url()).toBe(`${g.s.url}/console`);
      await signIn(page, g.s.url, g.s.adminKey);
      await navLink(page, "Overview").waitFor();
      expect(await page.evaluate(() => sessionStorage.length)).toBe(1);
      expect(page.url()).not.toContain(g.s.adminKey);
      await page.locator('[data-total="Requests"]').filter({ hasText: "2" }).waitFor();
      expect(await page.locator("td", { hasText: "acme/openai-only" }).count()).toBeGreaterThan(0);

      await navLink(page, "Requests").click();
      await page.getByRole("heading", { name: "Requests" }).waitFor();
      const xssCell = page.locator('td[data-col="Tags"]', { hasText: XSS });
      await xssCell.waitFor();
      expect(await page.locator("img").count()).toBe(0);
      await page.getByText("1–2 of 2").waitFor();

      await page.locator("tbody tr", { hasText: XSS }).getByRole("button").click();
      const detail = page.getByRole("region", { name: "Request detail" });
      await detail.getByRole("heading", { name: "Attempts" }).waitFor();
      expect(page.url()).toContain("#/requests/");
      expect(await detail.locator('[data-field="Tags"]').textContent()).toBe(XSS);
      expect(await detail.locator('[data-field="Provider"]').textContent()).toBe("alpha");
      expect(await detail.locator("tbody tr").count()).toBe(1);
      expect(await page.locator("img").count()).toBe(0);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("a page whose scope the key lacks is disabled and names the scope", async () => {
    const { key } = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: "narrow", scopes: [] });
    const { page } = await openPage(browser);
    try {
      await signIn(page, g.s.url, key);
      const nav = page.getByRole("navigation", { name: "Console" });
      expect(await nav.getByRole("link", { name: "Overview", exact: true }).count()).toBe(0);
      await nav.locator('[aria-disabled="true"]', { hasText: "Overview" }).getByText("needs usage:read").waitFor();
      await page.getByText("This page needs the usage:read scope.").waitFor();
    } finally {
      await page.close();
    }
  });
});
