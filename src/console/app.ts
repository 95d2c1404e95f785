// The operator console in the browser: sign in with an API key (kept in sessionStorage only), then the
// pages the key's scopes allow. Plain h() calls keep the repo's tsconfig free of JSX settings; every
// user-controlled string is a text child, which Preact escapes.
import { h, render, type VNode } from "preact";
import { useEffect, useState } from "preact/hooks";

const KEY = "switchyard.console.key";
type Me = { workspace_id: string; name: string; scopes: string[] };
type Row = Record<string, unknown>;
type Page = { name: string; scope: string; view: (me: Me) => VNode<any> };

async function api(path: string): Promise<Row> {
  const r = await fetch(path, { headers: { authorization: `Bearer ${sessionStorage.getItem(KEY) ?? ""}` } });
  const body = (await r.json()) as Row;
  if (!r.ok) throw new Error(String((body.error as Row | undefined)?.message ?? `HTTP ${r.status}`));
  return body;
}

function useApi(path: string): { data: Row | null; error: string | null } {
  const [state, set] = useState<{ data: Row | null; error: string | null }>({ data: null, error: null });
  useEffect(() => {
    set({ data: null, error: null });
    api(path).then(
      (data) => set({ data, error: null }),
      (e: Error) => set({ data: null, error: e.message }),
    );
  }, [path]);
  return state;
}

const dollars = (micro: unknown) => `$${(Number(micro ?? 0) / 1e6).toFixed(6)}`;
const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));

function table(cols: [string, (r: Row) => unknown][], rows: Row[], onRow?: (r: Row) => void) {
  return h("table", null, [
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        cols.map(([c]) => h("th", { scope: "col" }, c)),
      ),
    ),
    h(
      "tbody",
      null,
      rows.map((r) =>
        h(
          "tr",
          null,
          cols.map(([c, f], i) =>
            h(
              "td",
              { "data-col": c },
              i === 0 && onRow ? h("button", { type: "button", class: "link", onClick: () => onRow(r) }, text(f(r))) : text(f(r)),
            ),
          ),
        ),
      ),
    ),
  ]);
}

function status(s: { data: Row | null; error: string | null }) {
  if (s.error) return h("p", { role: "alert", class: "error" }, s.error);
  if (!s.data) return h("p", { "aria-busy": "true" }, "Loading…");
  return null;
}

function Overview({ me }: { me: Me }) {
  const s = useApi(`/v1/workspaces/${me.workspace_id}/usage?group_by=model`);
  if (!s.data) return status(s);
  const t = s.data.total as Row;
  const data = s.data.data as Row[];
  return h("section", null, [
    h("h2", null, "Overview"),
    h("p", null, `${text(s.data.start_date)} to ${text(s.data.end_date)}`),
    h(
      "dl",
      { class: "totals" },
      [
        ["Requests", t.requests],
        ["Errors", t.errors],
        ["Cost", dollars(t.cost_microdollars)],
        ["Tokens", t.total_tokens],
      ].flatMap(([k, v]) => [h("dt", null, text(k)), h("dd", { "data-total": text(k) }, text(v))]),
    ),
    data.length === 0
      ? h("p", null, "No calls in this range yet.")
      : table(
          [
            ["Model", (r) => r.group],
            ["Requests", (r) => r.requests],
            ["Errors", (r) => r.errors],
            ["Input tokens", (r) => r.input_tokens],
            ["Output tokens", (r) => r.output_tokens],
            ["Cost", (r) => dollars(r.cost_microdollars)],
          ],
          data,
        ),
  ]);
}

const PAGE_SIZE = 20;

function RequestDetail({ me, id, back }: { me: Me; id: string; back: () => void }) {
  const s = useApi(`/v1/workspaces/${me.workspace_id}/requests/${encodeURIComponent(id)}`);
  const head = h("button", { type: "button", onClick: back }, "← Back to requests");
  if (!s.data) return h("section", null, [head, status(s)]);
  const r = s.data;
  const fields: [string, unknown][] = [
    ["Request ID", r.request_id],
    ["Created", r.created_at],
    ["Model", r.model],
    ["Provider", r.provider],
    ["Routing strategy", r.routing_strategy],
    ["Status", r.status_code],
    ["Input tokens", r.input_tokens],
    ["Output tokens", r.output_tokens],
    ["Cost", dollars(r.cost_microdollars)],
    ["Tags", (r.tags as string[] | null)?.join(", ")],
    ["Metadata", r.custom_fields],
  ];
  return h("section", { "aria-label": "Request detail" }, [
    head,
    h("h2", null, "Request"),
    h(
      "dl",
      null,
      fields.flatMap(([k, v]) => [h("dt", null, k), h("dd", { "data-field": k }, text(v))]),
    ),
    h("h3", null, "Attempts"),
    table(
      [
        ["Attempt", (a) => a.attempt],
        ["Provider", (a) => a.provider],
        ["Provider model", (a) => a.provider_model_id],
        ["Status", (a) => a.status_code],
        ["Error", (a) => a.error_code],
        ["Latency ms", (a) => a.latency_ms],
        ["Final", (a) => (a.is_final_attempt ? "yes" : "no")],
      ],
      r.attempts as Row[],
    ),
  ]);
}

function Requests({ me }: { me: Me }) {
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const s = useApi(`/v1/workspaces/${me.workspace_id}/requests?limit=${PAGE_SIZE}&offset=${offset}`);
  if (open) return h(RequestDetail, { me, id: open, back: () => setOpen(null) });
  if (!s.data) return status(s);
  const rows = s.data.requests as Row[];
  const total = Number(s.data.total);
  return h("section", null, [
    h("h2", null, "Requests"),
    rows.length === 0
      ? h("p", null, "No requests recorded yet.")
      : table(
          [
            ["Request ID", (r) => r.request_id],
            ["Created", (r) => r.created_at],
            ["Model", (r) => r.model],
            ["Provider", (r) => r.provider],
            ["Success", (r) => (r.success ? "yes" : "no")],
            ["Tokens", (r) => Number(r.input_tokens ?? 0) + Number(r.output_tokens ?? 0)],
            ["Cost", (r) => dollars(r.cost_microdollars)],
            ["Tags", (r) => (r.tags as string[] | null)?.join(", ")],
          ],
          rows,
          (r) => setOpen(String(r.request_id)),
        ),
    h("nav", { "aria-label": "Pages of requests" }, [
      h("button", { type: "button", disabled: offset === 0, onClick: () => setOffset(Math.max(0, offset - PAGE_SIZE)) }, "Previous"),
      h("span", null, ` ${total === 0 ? 0 : offset + 1}–${offset + rows.length} of ${total} `),
      h("button", { type: "button", disabled: offset + PAGE_SIZE >= total, onClick: () => setOffset(offset + PAGE_SIZE) }, "Next"),
    ]),
  ]);
}

const PAGES: Page[] = [
  { name: "Overview", scope: "usage:read", view: (me) => h(Overview, { me }) },
  { name: "Requests", scope: "usage:read", view: (me) => h(Requests, { me }) },
];

function SignIn({ onMe }: { onMe: (me: Me) => void }) {
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const input = (e.currentTarget as HTMLFormElement).elements.namedItem("api-key") as HTMLInputElement;
    sessionStorage.setItem(KEY, input.value.trim());
    try {
      onMe((await api("/v1/me")) as unknown as Me);
    } catch (err) {
      sessionStorage.removeItem(KEY);
      setError((err as Error).message);
    }
  };
  return h("form", { onSubmit: submit, class: "signin" }, [
    h("h1", null, "Switchyard console"),
    h("label", { for: "api-key" }, "API key"),
    h("input", { id: "api-key", name: "api-key", type: "password", autocomplete: "off", required: true }),
    h("button", { type: "submit" }, "Sign in"),
    error ? h("p", { role: "alert", class: "error" }, error) : null,
  ]);
}

function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [page, setPage] = useState("Overview");
  useEffect(() => {
    if (sessionStorage.getItem(KEY))
      api("/v1/me").then(
        (m) => setMe(m as unknown as Me),
        () => sessionStorage.removeItem(KEY),
      );
  }, []);
  if (!me) return h(SignIn, { onMe: setMe });
  const current = PAGES.find((p) => p.name === page)!;
  const allowed = (p: Page) => me.scopes.includes(p.scope);
  const signOut = () => {
    sessionStorage.removeItem(KEY);
    setMe(null);
  };
  return h("div", { class: "shell" }, [
    h("nav", { "aria-label": "Console" }, [
      h("strong", null, "Switchyard"),
      h(
        "ul",
        null,
        PAGES.map((p) =>
          h("li", null, [
            h(
              "button",
              {
                type: "button",
                disabled: !allowed(p),
                "aria-current": p.name === page ? "page" : undefined,
                onClick: () => setPage(p.name),
              },
              p.name,
            ),
            allowed(p) ? null : h("small", null, ` needs ${p.scope}`),
          ]),
        ),
      ),
      h("span", null, `Signed in as ${me.name}`),
      h("button", { type: "button", onClick: signOut }, "Sign out"),
    ]),
    h("main", null, allowed(current) ? current.view(me) : h("p", null, `This page needs the ${current.scope} scope.`)),
  ]);
}

render(h(App, null), document.getElementById("app")!);
