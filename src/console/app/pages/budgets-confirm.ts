// An in-page confirmation for destructive actions (delete a budget, remove a member, withdraw an invite):
// the first press asks, the second does it; no window.confirm, which blocks the page and tests.
import "./budgets-confirm.css";
import { h } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

export interface ConfirmProps {
  /** The first button's text, e.g. "Delete". */
  label: string;
  /** What the question names, e.g. "the budget Workspace, monthly": used in the question and the buttons' names. */
  what: string;
  action: () => Promise<unknown>;
  done: (result: unknown) => void;
}

export function ConfirmButton(p: ConfirmProps) {
  const [state, set] = useState<{ asking: boolean; busy: boolean; error: string | null }>({ asking: false, busy: false, error: null });
  const yes = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  // Focus follows the question: onto "Yes" when asked, back to the first button when it is withdrawn.
  useLayoutEffect(() => {
    if (state.asking) yes.current?.focus();
    else if (wasAsking.current) first.current?.focus();
    wasAsking.current = state.asking;
  }, [state.asking]);
  const cancel = () => set({ asking: false, busy: false, error: null });
  if (!state.asking) {
    return h(
      "button",
      {
        type: "button",
        class: "bm-danger",
        ref: first,
        "aria-label": `${p.label} ${p.what}`,
        onClick: () => set({ asking: true, busy: false, error: null }),
      },
      p.label,
    );
  }
  const run = () => {
    set({ asking: true, busy: true, error: null });
    p.action().then(
      (r) => {
        set({ asking: false, busy: false, error: null });
        p.done(r);
      },
      (e: Error) => set({ asking: true, busy: false, error: e.message }),
    );
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape" && !state.busy) cancel();
  };
  return h("span", { class: "bm-confirm", role: "group", "aria-label": `Confirm: ${p.label} ${p.what}`, onKeyDown }, [
    h("span", null, `${p.label} ${p.what}?`),
    h(
      "button",
      { type: "button", class: "bm-danger", ref: yes, disabled: state.busy, onClick: run },
      state.busy ? "Working…" : `Yes, ${p.label.toLowerCase()}`,
    ),
    h("button", { type: "button", disabled: state.busy, onClick: cancel }, "Cancel"),
    state.error ? h("span", { class: "error", role: "alert" }, state.error) : null,
  ]);
}
