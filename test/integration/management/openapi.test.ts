// The served OpenAPI document is valid OpenAPI (checked by a maintained validator) and describes every
// management route's success body (and 202 where shared mode answers it) and its error envelope.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { startServer, type InProcessServer } from "../../support/server";
import { MANAGEMENT_ROUTES, type RouteId, type RouteSpec } from "../../../src/management/route-table";

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Record<string, unknown>> };
}

describe("the OpenAPI document", () => {
  let s: InProcessServer;
  let doc: Document;
  beforeAll(async () => {
    s = await startServer();
    doc = (await (await s.fetch("/openapi.json", { key: null })).json()) as Document;
  });
  afterAll(async () => {
    await s.stop();
  });

  test("is valid OpenAPI", async () => {
    const res = await new Validator().validate(doc as never);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
  });

  const operation = (spec: RouteSpec): Operation | undefined =>
    doc.paths[spec.path.replace(/:([^/]+)/g, "{$1}")]?.[spec.method.toLowerCase()];
  /** The body schema a response lists, its reference to the document's components followed. */
  const schemaAt = (op: Operation | undefined, status: number | string) => {
    const schema = op?.responses?.[String(status)]?.content?.["application/json"]?.schema;
    const ref = typeof schema?.$ref === "string" ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
    return ref === undefined ? schema : doc.components?.schemas?.[ref];
  };

  test("every management route has a body schema for its success status (and its 202)", () => {
    const missing: string[] = [];
    for (const [id, spec] of Object.entries(MANAGEMENT_ROUTES) as [RouteId, RouteSpec][]) {
      const op = operation(spec);
      if (!op) {
        missing.push(`${id}: no operation`);
        continue;
      }
      if (spec.ok === 204) {
        if (!op.responses?.["204"] || schemaAt(op, 204)) missing.push(`${id}: 204 not listed, or listed with a body`);
      } else if (schemaAt(op, spec.ok)?.type !== "object") missing.push(`${id}: no ${spec.ok} schema`);
      if (spec.pending && schemaAt(op, 202)?.type !== "object") missing.push(`${id}: no 202 schema`);
      if (!spec.pending && op.responses?.["202"]) missing.push(`${id}: 202 listed, but the route never answers it`);
    }
    expect(missing).toEqual([]);
  });

  test("every error status a route lists carries the error envelope", () => {
    const wrong: string[] = [];
    for (const [id, spec] of Object.entries(MANAGEMENT_ROUTES) as [RouteId, RouteSpec][]) {
      const statuses = Object.keys(operation(spec)?.responses ?? {}).filter((st) => Number(st) >= 400);
      // Every route can be refused (rate limit) or fail (500); keyed routes also answer 401 and 403.
      for (const st of ["429", "500", ...(spec.public ? [] : ["401", "403"])])
        if (!statuses.includes(st)) wrong.push(`${id}: ${st} missing`);
      for (const st of statuses) {
        const props = schemaAt(operation(spec), st)?.properties as Record<string, { properties?: Record<string, unknown> }> | undefined;
        const fields = Object.keys(props?.error?.properties ?? {}).sort();
        if (fields.join() !== "code,doc_url,message,param,provider,retryable,type")
          wrong.push(`${id} ${st}: ${fields.join() || "no envelope"}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("budgets list 422 and 409, BYOK creation 400 and 502, idempotent writes 409", () => {
    const statuses = (id: RouteId) => Object.keys(operation(MANAGEMENT_ROUTES[id])?.responses ?? {});
    expect(statuses("budgets.create")).toEqual(expect.arrayContaining(["201", "202", "400", "409", "413", "422"]));
    expect(statuses("budgets.update")).toEqual(expect.arrayContaining(["200", "202", "422"]));
    expect(statuses("byok.create")).toEqual(expect.arrayContaining(["201", "202", "400", "409", "502"]));
    expect(statuses("members.create")).not.toContain("409");
    expect(statuses("invites.accept")).not.toContain("401");
  });

  test("the /docs page lists each operation's statuses from the document", async () => {
    const html = await (await s.fetch("/docs", { key: null })).text();
    const row =
      /<tr><td><code>DELETE<\/code><\/td><td><code>\/v1\/workspaces\/\{workspace_id\}\/budgets\/\{budget_id\}<\/code><\/td>.*?<\/tr>/.exec(
        html,
      )?.[0];
    const listed = Object.keys(operation(MANAGEMENT_ROUTES["budgets.delete"])?.responses ?? {});
    expect(listed).toEqual(expect.arrayContaining(["202", "204", "404"]));
    expect(row).toContain(`<td>${listed.join(" ")}</td>`);
  });
});
