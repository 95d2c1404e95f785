// Shared by the console's browser tests: Debian's Chromium driven by playwright-core, a page that records
// any script error or dialog (a rendered XSS payload would open one), and signing in with a key.
import { expect } from "bun:test";
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import type { TestGateway } from "../../support/gateway";

export const CHROMIUM = "/usr/bin/chromium";
export const XSS = "<img src=x onerror=alert(1)>";
// In CI the browser is installed by .ci/run, so a missing one is a failure there, never a skip.
export const canRun = existsSync(CHROMIUM) || process.env.CI !== undefined;

export function launch(): Promise<Browser> {
  return chromium.launch({
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
}

export interface WatchedPage {
  page: Page;
  /** Messages of dialogs opened (and dismissed) and of uncaught page errors: both must stay empty. */
  dialogs: string[];
  errors: string[];
  /** Console messages reporting a Content-Security-Policy violation (a style or script the policy refused). */
  csp: string[];
}

export async function openPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport });
  // Under the test's own 30 s limit, so that a wait that never ends fails with what it waited for.
  page.setDefaultTimeout(15_000);
  const w: WatchedPage = { page, dialogs: [], errors: [], csp: [] };
  page.on("console", (m) => {
    if (/Content.Security.Policy/i.test(m.text())) w.csp.push(m.text());
  });
  page.on("dialog", (d) => {
    w.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("pageerror", (e) => w.errors.push(e.message));
  return w;
}

/** Open the console (at `hash`, e.g. "#/budgets") and sign in; resolves once the navigation is shown. */
export async function signIn(page: Page, baseUrl: string, key: string, hash = ""): Promise<void> {
  await page.goto(`${baseUrl}/console${hash}`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Console" }).waitFor();
}

/** The navigation's link to a page. */
export const navLink = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });

/** The page opened no dialog, threw no error and broke no Content-Security-Policy rule. */
export function expectClean(w: WatchedPage): void {
  expect({ dialogs: w.dialogs, errors: w.errors, csp: w.csp }).toEqual({ dialogs: [], errors: [], csp: [] });
}

/** One chat call through the gateway with the admin key (200 expected), its record written before it returns. */
export async function chatCall(g: TestGateway, body: Record<string, unknown> = {}): Promise<void> {
  const r = await g.s.fetch("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "acme/openai-only", messages: [{ role: "user", content: "hi" }], ...body }),
  });
  expect(r.status).toBe(200);
  await r.arrayBuffer();
  await g.s.deps.records.flush();
}

/** Open a page from the navigation and wait until it has its heading and nothing is loading any more. */
export async function visit(page: Page, name: string): Promise<void> {
  await navLink(page, name).click();
  await page.getByRole("heading", { name, level: 2 }).waitFor();
  await page.locator("[aria-busy=true]").first().waitFor({ state: "detached" });
}

/** Waits (5 s at most) until the focused element's name, its aria-label or else its text, is `name`: focus moves after a render. */
export async function focusOn(page: Page, name: string): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const el = document.activeElement;
      return (el?.getAttribute("aria-label") ?? el?.textContent) === n;
    },
    name,
    { timeout: 5_000 },
  );
}
