// Adding a provider key: the provider from /v1/byok/providers, its tiers from …/{provider}/tiers, and the
// secret in a password field. The gateway checks the secret with the provider before saving; its verdict
// (a refusal beside the secret, an unreachable provider as the form's error) is shown as the API gives it.
// The secret is cleared from the form once saved and never comes back from the API.
import { h, type VNode } from "preact";
import { call, ws, type Row } from "../lib/api";
import { useDraft } from "../lib/draft";
import { field, form, formError, useSubmit } from "../lib/form";
import { useApi } from "../lib/hooks";
import type { Me } from "../lib/types";

const FIELDS = ["provider", "api_key", "name", "is_default", "account_tier"];

export interface Provider {
  id: string;
  display_name: string;
  default_tier: string | null;
  docs_url?: string | null;
}

function tierLabel(t: Row): string {
  const limits = [
    t.rpm != null ? `${t.rpm} rpm` : null,
    t.tpm != null ? `${t.tpm} tpm` : null,
    t.data_policy ? String(t.data_policy) : null,
  ];
  const detail = limits.filter(Boolean).join(", ");
  return detail ? `${t.name} (${detail})` : String(t.name);
}

export function AddProviderKey(p: { me: Me; providers: Provider[]; onSaved: (saved: Row) => void }): VNode<any> {
  const blank = (provider: string) => ({ provider, api_key: "", name: "", is_default: true, account_tier: "" });
  const { draft, setDraft, onField } = useDraft(() => blank(p.providers[0]?.id ?? ""));
  const tiers = useApi(draft.provider ? `/v1/byok/providers/${encodeURIComponent(draft.provider)}/tiers` : null);
  const chosen = p.providers.find((x) => x.id === draft.provider);
  const s = useSubmit(
    () => {
      const body: Row = { provider: draft.provider, api_key: draft.api_key, is_default: draft.is_default };
      if (draft.name.trim()) body.name = draft.name.trim();
      if (draft.account_tier) body.account_tier = draft.account_tier;
      return call("POST", ws(p.me.workspace_id, "/byok-keys"), body);
    },
    (saved) => {
      setDraft(blank(draft.provider));
      p.onSaved(saved);
    },
  );
  // A new provider has other tiers: the choice goes back to "detect".
  const onChange = (e: Event) => {
    const t = e.target as HTMLSelectElement;
    if (t.name === "provider" && t.value !== draft.provider) setDraft((d) => ({ ...d, provider: t.value, account_tier: "" }));
    else onField(e);
  };
  const f = s.failure;
  const tierRows = (tiers.data?.tiers as Row[] | undefined) ?? [];
  const auto = `Detect from the key${chosen?.default_tier ? `, else ${chosen.default_tier}` : ""}`;
  return h("section", { class: "ak-panel", "aria-labelledby": "pk-add-title" }, [
    h("h3", { id: "pk-add-title" }, "Add a provider key"),
    form(
      s,
      "Add a provider key",
      [
        field({
          label: "Provider",
          name: "provider",
          id: "pk-provider",
          type: "select",
          failure: f,
          value: draft.provider,
          options: p.providers.map((x) => [x.id, x.display_name === x.id ? x.id : `${x.display_name} (${x.id})`]),
        }),
        field({
          label: "Secret",
          name: "api_key",
          id: "pk-secret",
          type: "password",
          failure: f,
          value: draft.api_key,
          hint: "Checked with the provider before it is saved; never shown again.",
        }),
        field({ label: "Name (optional)", name: "name", id: "pk-name", failure: f, value: draft.name }),
        field({
          label: "Account tier",
          name: "account_tier",
          id: "pk-tier",
          type: "select",
          failure: f,
          value: draft.account_tier,
          options: [["", auto], ...tierRows.map((t): [string, string] => [String(t.name), tierLabel(t)])],
          hint: tiers.error ? `Tiers unavailable: ${tiers.error}` : undefined,
        }),
        field({
          label: "Default key for this provider",
          name: "is_default",
          id: "pk-default",
          type: "checkbox",
          failure: f,
          checked: draft.is_default,
        }),
        formError(f, FIELDS),
      ],
      "Validate and save",
      { onField: onChange },
    ),
  ]);
}
