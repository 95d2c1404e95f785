// The console as a whole, page by page: reached by keyboard alone, every control labelled, no page wider
// than a phone, and no Content-Security-Policy violation (a refused script or style would break a page).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startGateway, type TestGateway } from "../../support/gateway";
import { canRun, chatCall, launch, openPage, signIn, visit } from "./browser";

const PAGES = ["Overview", "Requests", "Routing", "API keys", "Provider keys", "Budgets", "Members", "Audit log", "Playground"];

/** Controls in the page with no accessible name: a label, aria-label(ledby), or a button's own text. */
function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll("input, select, textarea, button"))
      .filter((el) => {
        const c = el as HTMLInputElement;
        if (c.type === "hidden") return false;
        const named = (c.labels?.length ?? 0) > 0 || c.getAttribute("aria-label") || c.getAttribute("aria-labelledby") || c.title;
        return !named && !(el.tagName === "BUTTON" && el.textContent?.trim());
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}

describe.skipIf(!canRun)("console shell", () => {
  let g: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    g = await startGateway();
    await chatCall(g);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await g?.stop();
  });

  test("sign in and move between pages with the keyboard alone", async () => {
    const { page, errors } = await openPage(browser);
    try {
      await page.goto(`${g.s.url}/console`);
      await page.getByLabel("API key").focus();
      await page.keyboard.type(g.s.adminKey);
      await page.keyboard.press("Enter");
      await page.getByRole("navigation", { name: "Console" }).waitFor();
      // The skip link comes first and moves focus to the content.
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
      for (let i = 0; i < 20; i++) {
        await page.keyboard.press("Tab");
        if ((await page.evaluate(() => document.activeElement?.textContent)) === "Budgets") break;
      }
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Budgets", level: 2 }).waitFor();
      expect(page.url()).toEndWith("#/budgets");
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  for (const [label, viewport] of [
    ["1280 px", { width: 1280, height: 900 }],
    ["a phone", { width: 390, height: 844 }],
  ] as const) {
    test(`every page at ${label}: labelled controls, no sideways overflow, no CSP violation`, async () => {
      const { page, errors, dialogs, csp } = await openPage(browser, viewport);
      try {
        await signIn(page, g.s.url, g.s.adminKey);
        for (const name of PAGES) {
          await visit(page, name);
          expect({ name, unlabelled: await unlabelled(page) }).toEqual({ name, unlabelled: [] });
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          expect({ name, width: width <= viewport.width }).toEqual({ name, width: true });
        }
        expect({ errors, dialogs, csp }).toEqual({ errors: [], dialogs: [], csp: [] });
      } finally {
        await page.close();
      }
    });
  }
});
