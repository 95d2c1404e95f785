import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, runCli, spawnServer, type ServerProcess } from "../support/spawn";
import { generateApiKey } from "../../src/auth/key-format";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "switchyard-cli-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("start-up rejects bad configuration with one line naming the variable", () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ["PORT not a number", { PORT: "eighty" }, /^switchyard: PORT must be/],
    ["PORT out of range", { PORT: "70000" }, /^switchyard: PORT must be/],
    ["heap limit not a number", { SWITCHYARD_HEAP_LIMIT_MB: "lots" }, /^switchyard: SWITCHYARD_HEAP_LIMIT_MB must be an integer/],
    ["upstream client unknown", { SWITCHYARD_UPSTREAM_CLIENT: "curl" }, /^switchyard: SWITCHYARD_UPSTREAM_CLIENT must be 'sockets'/],
    ["DATABASE_URL unknown scheme", { DATABASE_URL: "mysql://x" }, /^switchyard: DATABASE_URL must be sqlite:PATH/],
    ["log level unknown", { SWITCHYARD_LOG_LEVEL: "loud" }, /^switchyard: SWITCHYARD_LOG_LEVEL must be/],
    ["admin key malformed", { SWITCHYARD_ADMIN_KEY: "ak_short" }, /^switchyard: SWITCHYARD_ADMIN_KEY must be .* got \(hidden\)/],
    ["REDIS_URL not a redis URL", { REDIS_URL: "http://x" }, /^switchyard: REDIS_URL must be/],
  ];
  for (const [name, env, re] of cases) {
    test(name, async () => {
      const r = await runCli(["serve"], { DATABASE_URL: `sqlite:${tmp()}/db`, ...env });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(re);
    });
  }

  test("a corrupt config file names the file and the reason", async () => {
    const d = tmp();
    writeFileSync(join(d, "bad.json"), "{ not json");
    const r = await runCli(["serve"], { DATABASE_URL: `sqlite:${d}/db`, SWITCHYARD_CONFIG: join(d, "bad.json") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(d, "bad.json"));
    expect(r.stderr).toContain("not valid JSON");
  });

  test("a config file field of the wrong type names its path", async () => {
    const d = tmp();
    writeFileSync(join(d, "c.json"), JSON.stringify({ credits: { enforce: "yes" } }));
    const r = await runCli(["serve"], { DATABASE_URL: `sqlite:${d}/db`, SWITCHYARD_CONFIG: join(d, "c.json") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("/credits/enforce");
  });

  test("an unreachable database stops start-up with a clear error and a non-zero exit", async () => {
    const r = await runCli(["migrate"], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^switchyard: cannot start: /);
  });
});

describe("CLI sub-commands on the database a server is using", () => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop("SIGKILL");
  });

  test("version and --help print and exit 0", async () => {
    const v = await runCli(["version", "--json"], {});
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toEqual({ version: expect.any(String) });
    const h = await runCli(["--help"], {});
    expect(h.stdout).toContain("key create --workspace ID");
  });

  test("workspace, key and credits made by the CLI are seen by a running server within 2 s; a second start on the same SQLite file works", async () => {
    const d = tmp();
    const admin = generateApiKey();
    const env = { DATABASE_URL: `sqlite:${d}/switchyard.db`, SWITCHYARD_ADMIN_KEY: admin, SWITCHYARD_LOG_LEVEL: "info" };
    server = await spawnServer(env);
    const second = await spawnServer(env);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    await second.stop("SIGTERM");

    const ws = await runCli(["workspace", "create", "--name", "Team A", "--json"], env);
    expect(ws.code).toBe(0);
    const wsRec = JSON.parse(ws.stdout) as { workspace_id: string; name: string };
    expect(wsRec.name).toBe("Team A");

    const key = await runCli(
      ["key", "create", "--workspace", wsRec.workspace_id, "--name", "ci", "--scopes", "workspace:read,usage:read", "--json"],
      env,
    );
    expect(key.code).toBe(0);
    const keyRec = JSON.parse(key.stdout) as { key: string; scopes: string[] };
    expect(keyRec.scopes).toEqual(["workspace:read", "usage:read"]);

    expect(
      await eventually(async () => {
        const r = await fetch(`${server!.url}/v1/me`, { headers: { authorization: `Bearer ${keyRec.key}` } });
        return r.status === 200 && ((await r.json()) as { workspace_id: string }).workspace_id === wsRec.workspace_id;
      }, 2_000),
    ).toBe(true);

    const credits = await runCli(["credits", "add", "--workspace", wsRec.workspace_id, "--usd", "12.5", "--json"], env);
    expect(credits.code).toBe(0);
    expect(JSON.parse(credits.stdout)).toMatchObject({
      workspace_id: wsRec.workspace_id,
      balance_microdollars: 12_500_000,
      currency: "USD",
    });
  });

  test("bad CLI input exits non-zero with a one-line reason", async () => {
    const env = { DATABASE_URL: `sqlite:${tmp()}/db` };
    const cases: [string[], RegExp][] = [
      [["key", "create", "--workspace", "nope", "--name", "x", "--scopes", "all"], /workspace nope not found/],
      [["workspace", "create"], /--name is required/],
      [["credits", "add", "--workspace", "x", "--usd", "ten"], /(not found|--usd must be)/],
      [["frobnicate"], /unknown command/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args, env);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(re);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});
