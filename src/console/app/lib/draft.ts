// A form's values kept in the page's state, for a page that reads them while the user types (to build a
// request, enable a button or show other fields): one handler on the form records every control's edit.
import { useState } from "preact/hooks";

export type Draft = Record<string, string | boolean | string[]>;

/** Draft values by control name; a checkbox holds a boolean, or a list of values for a group given as a list. */
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
      const v = t instanceof HTMLInputElement && t.type === "checkbox" ? t.checked : t.value;
      return d[t.name] === v ? d : { ...d, [t.name]: v };
    });
  };
  return { draft, setDraft, onField, reset: () => setDraft(initial()) };
}
