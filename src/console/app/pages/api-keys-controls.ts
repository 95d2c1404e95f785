// Pieces the API keys and provider keys pages share: forms whose values live in state (so a failed submit's
// re-render never resets what was typed), an in-page confirmation step, row actions that report their
// outcome (a 202's pending propagation included) and dates in the browser's local time.
import "./api-keys.css";
import { h, type ComponentChildren, type VNode } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiFailure, type Row } from "../lib/api";
import type { Submit } from "../lib/form";

export type Draft = Record<string, string | boolean | string[]>;

/** Draft values by control name; one handler on the form keeps them (checkbox groups hold a list). */
export function useDraft<T extends Draft>(initial: () => T) {
  const [draft, setDraft] = useState<T>(initial);
  const onField = (e: Event) => {
    const t = e.target as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    if (!t.name) return;
    setDraft((d) => {
      if (t instanceof HTMLInputElement && t.type === "checkbox" && Array.isArray(d[t.name])) {
        const list = (d[t.name] as string[]).filter((v) => v !== t.value);
        return { ...d, [t.name]: t.checked ? [...list, t.value] : list };
      }
      return { ...d, [t.name]: t instanceof HTMLInputElement && t.type === "checkbox" ? t.checked : t.value };
    });
  };
  return { draft, setDraft, onField };
}

export function draftForm(
  s: Submit,
  label: string,
  onField: (e: Event) => void,
  children: ComponentChildren,
  submitLabel: string,
  extra?: ComponentChildren,
): VNode<any> {
  return h("form", { onSubmit: s.onSubmit, onInput: onField, onChange: onField, "aria-label": label, class: "form", noValidate: true }, [
    children,
    h("div", { class: "ak-buttons" }, [
      h("button", { type: "submit", disabled: s.busy }, s.busy ? "Working…" : submitLabel),
      extra ?? null,
    ]),
  ]);
}

/** "2026-12-04T09:30" in local time, the value a datetime-local input takes. */
export function localInput(iso: unknown): string {
  if (typeof iso !== "string" || !iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A datetime-local value (local time) as the API's ISO 8601; empty stays empty. */
export const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : "");

/** A date-time in local time, its exact ISO value kept in the element. */
export function when(iso: unknown, none = "never"): VNode<any> {
  if (typeof iso !== "string" || !iso) return h("span", { class: "ak-none" }, none);
  return h("time", { dateTime: iso, title: iso }, localInput(iso).replace("T", " "));
}

/** What a write's answer adds: a 202 means other gateway instances have not applied it yet. */
export const pending = (r: Row | null | undefined) =>
  r?.propagation_status === "pending" ? " Propagation is pending (202): other gateway instances apply it within 5 seconds." : "";

export function readOnlyNote(scope: string, what: string): VNode<any> {
  return h("p", { class: "ak-note", role: "note" }, `Read-only: your key lacks the ${scope} scope, so it cannot ${what}.`);
}

/** A button that asks in the page (never window.confirm): the question and its two answers replace it. */
export function Confirm(p: { label: string; question: string; yes: string; busy: boolean; onYes: () => void; danger?: boolean }) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking) return h("button", { type: "button", class: p.danger ? "ak-danger" : undefined, onClick: () => setAsking(true) }, p.label);
  return h("span", { class: "ak-confirm", role: "group", "aria-label": p.question }, [
    h("span", null, p.question),
    h(
      "button",
      {
        type: "button",
        ref: yes,
        class: "ak-danger",
        disabled: p.busy,
        onClick: () => {
          setAsking(false);
          p.onYes();
        },
      },
      p.yes,
    ),
    h("button", { type: "button", onClick: () => setAsking(false) }, "Cancel"),
  ]);
}

export interface Action {
  busy: boolean;
  error: string | null;
  notice: string | null;
  /** `done` is said on success (with a 202's pending note), `failed` before the API's message otherwise. */
  run: (done: string, failed: string, call: () => Promise<Row>, after?: () => void) => void;
  /** Say an outcome reached elsewhere (a form's save) in the same place. */
  tell: (notice: string) => void;
}

/** A row action (revoke, disable, …): one at a time, its failure or its outcome said above the list. */
export function useAction(): Action {
  const [state, set] = useState<{ busy: boolean; error: string | null; notice: string | null }>({
    busy: false,
    error: null,
    notice: null,
  });
  const run = (done: string, failed: string, call: () => Promise<Row>, after?: () => void) => {
    set({ busy: true, error: null, notice: null });
    call().then(
      (r) => {
        set({ busy: false, error: null, notice: `${done}.${pending(r)}` });
        after?.();
      },
      (e: unknown) => set({ busy: false, notice: null, error: `${failed}: ${e instanceof ApiFailure ? e.message : String(e)}` }),
    );
  };
  return { ...state, run, tell: (notice) => set({ busy: false, error: null, notice }) };
}

export function actionStatus(a: Action): VNode<any> {
  return h("div", { class: "ak-action-status" }, [
    a.error ? h("p", { class: "error", role: "alert" }, a.error) : null,
    h("p", { class: "ak-notice", role: "status" }, a.notice ?? ""),
  ]);
}
