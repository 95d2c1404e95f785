import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, spawnServer, type ServerProcess } from "../support/spawn";

const dir = mkdtempSync(join(tmpdir(), "switchyard-bin-"));
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test("the compiled binary starts on an empty data folder, prints an admin key once and serves with it", async () => {
  const out = join(dir, "switchyard");
  const build = Bun.spawnSync([process.execPath, "scripts/build.ts"], { cwd: ROOT, env: { ...process.env, SWITCHYARD_BUILD_OUT: out } });
  expect(build.exitCode).toBe(0);
  expect(statSync(out).mode & 0o111).toBeGreaterThan(0);

  // Run from an unrelated folder so nothing from the repo (migrations, catalog) can be read from disk.
  const data = join(dir, "data");
  server = await spawnServer({ SWITCHYARD_TUNING: "on", DATABASE_URL: `sqlite:${data}/switchyard.db` }, [out]);
  const key = /\b(ak_[A-Za-z0-9]{32,})\b/.exec(server.output())?.[1];
  expect(key).toBeDefined();
  expect(existsSync(join(data, "switchyard.db"))).toBe(true);

  expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  // It re-executed itself once for its runtime settings (platform/tuning/runtime-env.ts): same pid, and
  // still named after its executable for ps and pkill.
  expect(readFileSync(`/proc/${server.proc.pid}/environ`, "utf8")).toMatch(/(^|\0)MIMALLOC_PURGE_HOLES_MIN_INTERVAL=1000\0/);
  expect(readFileSync(`/proc/${server.proc.pid}/comm`, "utf8").trim()).toBe("switchyard");
  const me = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
  expect(me.status).toBe(200);
  const models = await fetch(`${server.url}/v1/registry/providers`);
  expect(models.status).toBe(200);
  // The console is inside the binary, and its address is printed beside the key.
  expect(server.output()).toContain("/console (sign in with the key)");
  const page = await fetch(`${server.url}/console`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
  const script = /src="([^"]+\.js)"/.exec(await page.text())?.[1];
  expect(script).toBeDefined();
  expect((await fetch(new URL(script!, `${server.url}/console/`))).status).toBe(200);
  // The stylesheet holds what the pages import: the chart library's rules and a page's own.
  const css = await (await fetch(`${server.url}/console/app.css`)).text();
  expect(css).toContain(".uplot");
  expect(css).toContain(".spend");

  // SIGTERM drains and exits 0.
  expect(await server.stop("SIGTERM")).toBe(0);
  server = undefined;
}, 60_000);
