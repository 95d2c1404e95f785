// The in-page confirmation every destructive action uses (revoke a key, delete a budget, remove a member…):
// the first press asks, the second does it; never window.confirm, which blocks the page and its tests.
import "./confirm.css";
import { h } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

export interface ConfirmProps {
  /** The first button's text, e.g. "Delete". */
  label: string;
  /** The first button's accessible name when its text alone is ambiguous in a list, e.g. "Delete budget Workspace". */
  name?: string;
  question: string;
  /** The group's accessible name; the question when absent. */
  groupLabel?: string;
  yes: string;
  /** "Yes" while its promise runs; "Working…" when absent. */
  working?: string;
  /** Ask with the focus on Cancel, so Enter answers no: for an action that undoes much at once. */
  focusCancel?: boolean;
  /** Busy elsewhere (a page's row action running): "Yes" waits. */
  busy?: boolean;
  /**
   * What "Yes" does. A promise keeps the question open, busy, until it settles: closed on success (then
   * `done` is told the result), its error said beside the buttons otherwise. Anything else closes it at once.
   */
  onYes: () => Promise<unknown> | void;
  done?: (result: unknown) => void;
}

export function Confirm(p: ConfirmProps) {
  const [state, set] = useState<{ asking: boolean; busy: boolean; error: string | null }>({ asking: false, busy: false, error: null });
  const answer = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  // Focus follows the question: onto an answer when asked, back to the first button when it is withdrawn.
  useLayoutEffect(() => {
    if (state.asking) answer.current?.focus();
    else if (wasAsking.current) first.current?.focus();
    wasAsking.current = state.asking;
  }, [state.asking]);
  const close = () => set({ asking: false, busy: false, error: null });
  if (!state.asking) {
    return h(
      "button",
      { type: "button", class: "danger", ref: first, "aria-label": p.name, onClick: () => set({ asking: true, busy: false, error: null }) },
      p.label,
    );
  }
  const busy = state.busy || p.busy === true;
  const run = () => {
    const r = p.onYes();
    if (!(r instanceof Promise)) return close();
    set({ asking: true, busy: true, error: null });
    r.then(
      (v) => {
        close();
        p.done?.(v);
      },
      (e: Error) => set({ asking: true, busy: false, error: e.message }),
    );
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape" && !state.busy) close();
  };
  return h("span", { class: "confirm", role: "group", "aria-label": p.groupLabel ?? p.question, onKeyDown }, [
    h("span", null, p.question),
    h(
      "button",
      { type: "button", class: "danger", ref: p.focusCancel ? undefined : answer, disabled: busy, onClick: run },
      state.busy ? (p.working ?? "Working…") : p.yes,
    ),
    h("button", { type: "button", ref: p.focusCancel ? answer : undefined, disabled: state.busy, onClick: close }, "Cancel"),
    state.error ? h("span", { class: "error", role: "alert" }, state.error) : null,
  ]);
}

/** The wording of a confirmation that names its target: "Remove member a@b.c?", "Yes, remove". */
export const asks = (label: string, what: string) => ({
  label,
  name: `${label} ${what}`,
  question: `${label} ${what}?`,
  groupLabel: `Confirm: ${label} ${what}`,
  yes: `Yes, ${label.toLowerCase()}`,
});
