// GET /v1/responses/{id} (the response object as the client received it), DELETE /v1/responses/{id}
// ({id, object: "response", deleted: true}) and GET /v1/responses/{id}/input_items (OpenAI's list), for
// the responses this workspace's calls kept. An inference key and no scope, as POST /v1/responses; the
// inference rate class (storeRateClass). Another workspace's ID, an expired or deleted one: 404.
import { Elysia, t } from "elysia";
import type { ApiKeyCache } from "../../../auth/key-cache";
import { authenticate } from "../../../http/auth";
import { ApiError } from "../../../http/errors";
import type { RateClass } from "../../../limits/classes";
import type { ResponseStore, StoredResponse } from "./store";
import { inputItemsPage } from "./input-items";

export interface StoreRouteDeps {
  keys: ApiKeyCache;
  /** Absent when `responses.store` is false: every ID is then not found. */
  store: ResponseStore | undefined;
}

const ONE = "/v1/responses/:response_id";
const ITEMS = "/v1/responses/:response_id/input_items";
const ROUTES = new Set([`GET ${ONE}`, `DELETE ${ONE}`, `GET ${ITEMS}`]);

/** These routes' rate class: inference, like the POST they read back. */
export function storeRateClass(method: string, route: string): RateClass | null {
  return ROUTES.has(`${method} ${route}`) ? "inference" : null;
}

const notFound = (id: string) => new ApiError("not_found", `Response with id '${id}' not found.`, { param: "response_id" });

const detail = (summary: string, description: string) => ({ summary, description, tags: ["inference"], security: [{ bearer: [] }] });

export function responsesStoreRoutes(d: StoreRouteDeps) {
  const found = async (request: Request, id: string): Promise<{ workspaceId: string; stored: StoredResponse }> => {
    const { workspaceId } = await authenticate(d.keys, request.headers);
    const stored = d.store ? await d.store.find(workspaceId, id, Date.now()) : null;
    if (!stored) throw notFound(id);
    return { workspaceId, stored };
  };
  return new Elysia({ name: "responses-store" })
    .get(
      ONE,
      async ({ request, params, set }) => {
        const { stored } = await found(request, params.response_id);
        set.headers["content-type"] = "application/json";
        return stored.responseText;
      },
      {
        detail: detail(
          "Retrieve a stored response",
          "The response object as the client first received it (routing_metadata included), for a call made with `store` true (the default) while the gateway's Responses store is on (config `responses.store`). Kept `responses.store_ttl_hours` (30 days by default); 404 `not_found` once expired or deleted, or for another workspace's ID.",
        ),
      },
    )
    .delete(
      ONE,
      async ({ request, params }) => {
        const { workspaceId } = await authenticate(d.keys, request.headers);
        const id = params.response_id;
        if (!d.store || !(await d.store.delete(workspaceId, id, Date.now()))) throw notFound(id);
        return { id, object: "response", deleted: true };
      },
      {
        detail: detail(
          "Delete a stored response",
          '`{id, object: "response", deleted: true}`; a follow-up naming it gets the previous_response_id 400 afterwards.',
        ),
      },
    )
    .get(
      ITEMS,
      async ({ request, params, query }) => {
        const { stored } = await found(request, params.response_id);
        const page = inputItemsPage(stored, query);
        if (!page.ok) throw new ApiError("invalid_parameter", page.message, { param: page.param });
        return page.list;
      },
      {
        query: t.Object({
          limit: t.Optional(t.String()),
          order: t.Optional(t.String()),
          after: t.Optional(t.String()),
          include: t.Optional(t.Unknown()),
        }),
        detail: detail(
          "List a stored response's input items",
          'OpenAI\'s list: `{object: "list", data, first_id, last_id, has_more}`: every item the model saw (earlier turns of a previous_response_id chain included), `order` desc (default) or asc, `limit` 1–100 (default 20), `after` an item ID. Items sent without an ID are listed under `<response id>_in_<position>`.',
        ),
      },
    );
}
