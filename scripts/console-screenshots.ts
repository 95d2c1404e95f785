// Screenshots of every console page for docs/console/ (and the README's one), taken in Debian's Chromium
// against a gateway with the test suite's mock upstream and a little traffic: `bun run screenshots`.
import { launch, signIn, visit } from "../test/integration/console/browser";
import { startGateway } from "../test/support/gateway";

const OUT = "docs/console";
const PAGES: [string, string][] = [
  ["Overview", "overview"],
  ["Requests", "requests"],
  ["Routing", "routing"],
  ["API keys", "api-keys"],
  ["Provider keys", "provider-keys"],
  ["Budgets", "budgets"],
  ["Members", "members"],
  ["Audit log", "audit-log"],
  ["Playground", "playground"],
];

const g = await startGateway();
try {
  const post = (path: string, body: unknown) =>
    g.s.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  // Traffic across models and tags, so the charts and the log have something to show.
  for (let i = 0; i < 24; i++) {
    const model = ["acme/chat", "acme/openai-only", "acme/anthropic-only", "acme/gemini-only"][i % 4];
    const tags = [i % 3 === 0 ? "batch" : "interactive"];
    const r = await post("/v1/chat/completions", {
      model,
      stream: i % 2 === 0,
      messages: [{ role: "user", content: `question ${i}` }],
      gateway: { metadata: { tags } },
    });
    await r.arrayBuffer();
  }
  await g.s.deps.records.flush();
  const ws = `/v1/workspaces/${g.s.workspaceId}`;
  await (await post(`${ws}/budgets`, { scope: "workspace", period: "monthly", limit: 0.002 })).arrayBuffer();
  await (await post(`${ws}/api-keys`, { name: "ci-deploy", scopes: ["usage:read", "routing:read"] })).arrayBuffer();
  await (
    await g.s.fetch(`${ws}/routing-defaults`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ optimize: "balanced" }),
    })
  ).arrayBuffer();

  const browser = await launch();
  try {
    for (const [viewport, suffix] of [
      [{ width: 1280, height: 860 }, ""],
      [{ width: 390, height: 844 }, "-phone"],
    ] as const) {
      const page = await browser.newPage({ viewport });
      await signIn(page, g.s.url, g.s.adminKey);
      for (const [name, slug] of suffix ? PAGES.slice(0, 2) : PAGES) {
        await visit(page, name);
        await page.waitForLoadState("networkidle");
        await page.screenshot({ path: `${OUT}/${slug}${suffix}.png`, fullPage: !suffix });
        console.log(`${OUT}/${slug}${suffix}.png`);
      }
      await page.close();
    }
  } finally {
    await browser.close();
  }
} finally {
  await g.stop();
}
