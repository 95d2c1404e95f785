// The operator console in a real browser (Debian's Chromium driven by playwright-core) against a gateway
// with a mock upstream: sign in, the overview and the request log show the calls just made, a tag holding
// markup renders as text, and the page carries its Content-Security-Policy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { startGateway, type TestGateway } from "../../support/gateway";

const CHROMIUM = "/usr/bin/chromium";
const XSS = "<img src=x onerror=alert(1)>";
// In CI the browser is installed by .ci/run, so a missing one is a failure there, never a skip.
const run = existsSync(CHROMIUM) || process.env.CI !== undefined;

describe.skipIf(!run)("console", () => {
  let g: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    g = await startGateway();
    for (const tags of [["plain"], [XSS]]) {
      const r = await g.s.fetch("/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "acme/openai-only", messages: [{ role: "user", content: "hi" }], gateway: { metadata: { tags } } }),
      });
      expect(r.status).toBe(200);
    }
    await g.s.deps.records.flush();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
      ],
    });
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
    const page = await browser.newPage();
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on("pageerror", (e) => errors.push(e.message));
    try {
      await page.goto(`${g.s.url}/`);
      expect(page.url()).toBe(`${g.s.url}/console`);
      await page.getByLabel("API key").fill(g.s.adminKey);
      await page.getByRole("button", { name: "Sign in" }).click();

      const nav = page.getByRole("navigation", { name: "Console" });
      await nav.getByRole("button", { name: "Overview" }).waitFor();
      expect(await page.evaluate(() => sessionStorage.length)).toBe(1);
      expect(page.url()).not.toContain(g.s.adminKey);
      await page.locator('[data-total="Requests"]').filter({ hasText: "2" }).waitFor();
      expect(await page.locator("td", { hasText: "acme/openai-only" }).count()).toBeGreaterThan(0);

      await nav.getByRole("button", { name: "Requests" }).click();
      await page.getByRole("heading", { name: "Requests" }).waitFor();
      const xssCell = page.locator('td[data-col="Tags"]', { hasText: XSS });
      await xssCell.waitFor();
      expect(await page.locator("img").count()).toBe(0);
      await page.getByText("1–2 of 2").waitFor();

      await page.locator("tbody tr", { hasText: XSS }).getByRole("button").click();
      const detail = page.getByRole("region", { name: "Request detail" });
      await detail.getByRole("heading", { name: "Attempts" }).waitFor();
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
    const page = await browser.newPage();
    try {
      await page.goto(`${g.s.url}/console`);
      await page.getByLabel("API key").fill(key);
      await page.getByRole("button", { name: "Sign in" }).click();
      const overview = page.getByRole("navigation", { name: "Console" }).getByRole("button", { name: "Overview" });
      await overview.waitFor();
      expect(await overview.isDisabled()).toBe(true);
      await page.getByText("This page needs the usage:read scope.").waitFor();
    } finally {
      await page.close();
    }
  });
});
