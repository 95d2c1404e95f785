// A form's typed values kept in state. Preact re-applies a control's `value`/`checked` on every render,
// so a form whose page re-renders (a list reloading beside it) must pass what was typed, not a default.
import { h, type ComponentChildren, type VNode } from "preact";
import { useState } from "preact/hooks";

export type Draft = Record<string, string | boolean>;

export function useDraft(initial: Draft) {
  const [draft, set] = useState<Draft>(initial);
  const onEdit = (e: Event) => {
    const el = e.target as HTMLInputElement | HTMLSelectElement;
    if (!el.name) return;
    const v = el instanceof HTMLInputElement && el.type === "checkbox" ? el.checked : el.value;
    set((d) => (d[el.name] === v ? d : { ...d, [el.name]: v }));
  };
  return {
    draft,
    str: (name: string) => String(draft[name] ?? ""),
    on: (name: string) => draft[name] === true,
    set: (name: string, v: string | boolean) => set((d) => ({ ...d, [name]: v })),
    reset: () => set(initial),
    /** Wraps a form's fields (display: contents, so the form's grid still lays them out) to record edits. */
    wrap: (children: ComponentChildren): VNode<any> => h("div", { class: "bm-draft", onInput: onEdit, onChange: onEdit }, children),
  };
}
