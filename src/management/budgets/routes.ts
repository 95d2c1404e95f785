// Budget routes. A bad limit, scope, scope_id or period is 422 validation_error (API document §4.3);
// other malformed input (unknown fields, wrong flag types) is 400 invalid_parameter.
import { Type, type Static } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { BUDGET_PERIODS } from "../../metering/periods";
import { mount, type Mounting, type Reply } from "../mount";
import { writeOutcome } from "../propagation";
import { check, oneOf, uuidParam } from "../validate";
import {
  Budget,
  BudgetDeleted,
  type BudgetFeature,
  BudgetList,
  createBudget,
  deleteBudget,
  getBudget,
  limitToMicro,
  renderBudget,
  updateBudget,
} from "./service";
import type { BudgetPatch } from "./repo";

const Usd = Type.Number({ exclusiveMinimum: 0, maximum: 1e9, description: "a number of USD greater than 0" });
const Flag = Type.Boolean({ description: "a boolean" });

export const BudgetCreateBody = Type.Object(
  {
    scope: oneOf(["workspace", "api_key", "byok"] as const),
    scope_id: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
        description: "the API key ID (api_key) or provider ID (byok)",
      }),
    ),
    period: oneOf(BUDGET_PERIODS),
    limit: Usd,
    enforce: Type.Optional(Flag),
    include_byok: Type.Optional(Flag),
  },
  { additionalProperties: false },
);

export const BudgetPatchBody = Type.Object(
  { limit: Type.Optional(Usd), enforce: Type.Optional(Flag), include_byok: Type.Optional(Flag) },
  { additionalProperties: false },
);

const VALIDATION_FIELDS = new Set(["scope", "scope_id", "period", "limit"]);
const codeFor = (param: string) => (VALIDATION_FIELDS.has(param) ? "validation_error" : "invalid_parameter");

export function budgetRoutes(app: Elysia, m: Mounting, d: BudgetFeature): Elysia {
  const budgetId = (p: Record<string, string | undefined>) => uuidParam(p.budget_id, "budget_id");
  mount(
    app,
    m,
    "budgets.list",
    async (c) => {
      const rows = await d.budgets.list(c.workspaceId);
      const budgets = await Promise.all(rows.map((b) => renderBudget(d, b)));
      return { status: 200, body: { budgets, count: budgets.length } };
    },
    { response: BudgetList },
  );
  mount(
    app,
    m,
    "budgets.create",
    async (c) => {
      const b = check(BudgetCreateBody, c.body, { codeFor });
      const out = writeOutcome(d.shared, "created");
      let reply: Reply<Static<typeof Budget>> | undefined;
      // Rendered and stored for Idempotency-Key in the create's own transaction, so both commit or neither.
      await createBudget(
        d,
        c.actorId,
        c.workspaceId,
        {
          scope: b.scope,
          scopeId: b.scope_id ?? null,
          period: b.period,
          limitMicrodollars: limitToMicro(b.limit),
          enforce: b.enforce ?? true,
          includeByok: b.include_byok ?? false,
        },
        async (o, row) => {
          reply = { status: out.status, body: await renderBudget(d, row, out.propagationStatus) };
          await c.saveReply?.(o, reply);
        },
      );
      return reply!;
    },
    {
      body: BudgetCreateBody,
      response: Budget,
      errors: ["validation_error", "budget_exists"],
      description:
        "`limit` and `spend` are USD; periods are UTC (weeks start on Monday). 409 budget_exists for a second budget on the same scope and period.",
    },
  );
  mount(
    app,
    m,
    "budgets.get",
    async (c) => ({ status: 200, body: await renderBudget(d, await getBudget(d, c.workspaceId, budgetId(c.params))) }),
    { response: Budget },
  );
  mount(
    app,
    m,
    "budgets.update",
    async (c) => {
      const id = budgetId(c.params);
      const b = check(BudgetPatchBody, c.body, { codeFor });
      const patch: BudgetPatch = {};
      if (b.limit !== undefined) patch.limitMicrodollars = limitToMicro(b.limit);
      if (b.enforce !== undefined) patch.enforce = b.enforce;
      if (b.include_byok !== undefined) patch.includeByok = b.include_byok;
      const row = await updateBudget(d, c.actorId, c.workspaceId, id, patch);
      const out = writeOutcome(d.shared, "updated");
      return { status: out.status, body: await renderBudget(d, row, out.propagationStatus) };
    },
    { body: BudgetPatchBody, response: Budget, errors: ["validation_error"] },
  );
  mount(
    app,
    m,
    "budgets.delete",
    async (c) => {
      const id = budgetId(c.params);
      await deleteBudget(d, c.actorId, c.workspaceId, id);
      const out = writeOutcome(d.shared, "deleted");
      return {
        status: out.status,
        body: out.status === 204 ? undefined : { budget_id: id, deleted: true as const, propagation_status: out.propagationStatus },
      };
    },
    { accepted: BudgetDeleted },
  );
  return app;
}
