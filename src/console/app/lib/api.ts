// The console's only way to the gateway: the public API with the signed-in key as a bearer token. A
// failure keeps the API's error object, so a form can show `message` beside the field `param` names.
export const KEY = "switchyard.console.key";

export type Row = Record<string, unknown>;

export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly param: string | null,
    readonly code: string | null,
  ) {
    super(message);
  }
}

export const signedInKey = () => sessionStorage.getItem(KEY) ?? "";

export async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Row> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${signedInKey()}`, ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const r = await fetch(path, init);
  const text = await r.text();
  let parsed: Row = {};
  try {
    parsed = text ? (JSON.parse(text) as Row) : {};
  } catch {
    // A body that is not JSON (a proxy's error page) keeps only the status.
  }
  if (!r.ok) {
    const e = (parsed.error ?? {}) as Row;
    throw new ApiFailure(
      String(e.message ?? `HTTP ${r.status}`),
      r.status,
      typeof e.param === "string" ? e.param : null,
      typeof e.code === "string" ? e.code : null,
    );
  }
  return parsed;
}

export const api = (path: string) => call("GET", path);

/** A workspace path: `/v1/workspaces/{id}` + rest. */
export const ws = (workspaceId: string, rest = "") => `/v1/workspaces/${encodeURIComponent(workspaceId)}${rest}`;
