// Forms: a submit that keeps the API's failure, and fields that show its message beside the control the
// failure's `param` names (or, for a param no field owns, above the buttons).
import { h, type ComponentChildren, type VNode } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiFailure } from "./api";

export interface Submit {
  busy: boolean;
  failure: ApiFailure | null;
  onSubmit: (e: Event) => void;
  clear: () => void;
}

export function useSubmit<T>(action: (form: HTMLFormElement) => Promise<T>, done?: (result: T, form: HTMLFormElement) => void): Submit {
  const [state, set] = useState<{ busy: boolean; failure: ApiFailure | null }>({ busy: false, failure: null });
  const onSubmit = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    set({ busy: true, failure: null });
    action(form).then(
      (r) => {
        set({ busy: false, failure: null });
        done?.(r, form);
      },
      (err: unknown) =>
        set({
          busy: false,
          failure: err instanceof ApiFailure ? err : new ApiFailure(String((err as Error)?.message ?? err), 0, null, null),
        }),
    );
  };
  return { ...state, onSubmit, clear: () => set({ busy: false, failure: null }) };
}

/** Does the failure's param name this field (itself, or a path inside it such as `scopes[2]`)? */
export function owns(param: string | null, name: string): boolean {
  return param !== null && (param === name || param.startsWith(`${name}.`) || param.startsWith(`${name}[`));
}

export interface FieldProps {
  label: string;
  /** The API's field name: the form control's name and the `param` this field shows errors for. */
  name: string;
  failure: ApiFailure | null;
  type?: "text" | "number" | "password" | "date" | "datetime-local" | "checkbox" | "select" | "textarea" | "email";
  options?: [string, string][];
  value?: string;
  checked?: boolean;
  required?: boolean;
  hint?: string;
  multiple?: boolean;
  step?: string;
  min?: string;
  placeholder?: string;
  id?: string;
}

/**
 * A labelled control. It keeps what the user typed across re-renders (Preact re-applies `value` and
 * `checked` on each one) until the page gives it another value, or its form is reset.
 */
export function field(p: FieldProps): VNode<any> {
  return h(Field, p);
}

type Given = string | boolean | undefined;

function Field(p: FieldProps): VNode<any> {
  const given: Given = p.type === "checkbox" ? p.checked : p.value;
  // What the control holds, for the next render: a value the page gives anew replaces what was typed.
  const held = useRef<{ given: Given; value: Given }>({ given, value: given });
  if (held.current.given !== given) held.current = { given, value: given };
  const value = held.current.value;
  const [, rerender] = useState(0);
  const ref = useRef<HTMLInputElement & HTMLSelectElement & HTMLTextAreaElement>(null);
  useEffect(() => {
    const f = ref.current?.form;
    // The form's reset puts the page's value back (the render re-applies it to the control).
    const back = () => {
      held.current = { given: held.current.given, value: held.current.given };
      rerender((n) => n + 1);
    };
    f?.addEventListener("reset", back);
    return () => f?.removeEventListener("reset", back);
  }, []);
  // The control already shows the edit: it is only recorded, so no render is needed.
  const onInput = (e: Event) => {
    const t = e.currentTarget as HTMLInputElement;
    held.current = { given, value: p.type === "checkbox" ? t.checked : t.value };
  };
  const id = p.id ?? `f-${p.name.replace(/[^a-z0-9_-]/gi, "-")}`;
  const error = p.failure && owns(p.failure.param, p.name) ? p.failure.message : null;
  const described = [error ? `${id}-error` : null, p.hint ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    ref,
    name: p.name,
    "aria-invalid": error ? "true" : undefined,
    "aria-describedby": described,
    required: p.required,
    onInput,
    onChange: onInput,
  };
  // A checkbox's value is its `checked`; every other control's is a string or none.
  const v = value as string | undefined;
  let control: VNode<any>;
  if (p.type === "select") {
    const one = p.multiple ? undefined : v;
    control = h(
      "select",
      {
        ...common,
        multiple: p.multiple,
        value: one,
      },
      (p.options ?? []).map(([o, l]) => h("option", { value: o, selected: o === one }, l)),
    );
  } else if (p.type === "textarea") {
    control = h("textarea", { ...common, value: v, placeholder: p.placeholder, rows: 3 });
  } else if (p.type === "checkbox") {
    control = h("input", { ...common, type: "checkbox", checked: value === true });
  } else {
    control = h("input", { ...common, type: p.type ?? "text", value: v, step: p.step, min: p.min, placeholder: p.placeholder });
  }
  return h("div", { class: p.type === "checkbox" ? "field check" : "field" }, [
    h("label", { for: id }, p.label),
    control,
    p.hint ? h("small", { id: `${id}-hint`, class: "hint" }, p.hint) : null,
    error ? h("p", { id: `${id}-error`, class: "field-error", role: "alert" }, error) : null,
  ]);
}

/** The failure no field owns (or every failure, when `names` is empty), shown once for the form. */
export function formError(failure: ApiFailure | null, names: string[]): VNode<any> | null {
  if (!failure || names.some((n) => owns(failure.param, n))) return null;
  return h("p", { class: "error", role: "alert" }, failure.param ? `${failure.param}: ${failure.message}` : failure.message);
}

export interface FormExtras {
  /** Told of every control's edit (a draft's `onField`). */
  onField?: (e: Event) => void;
  /** More buttons beside the submit, e.g. Cancel. */
  buttons?: ComponentChildren;
}

export function form(s: Submit, label: string, children: ComponentChildren, submitLabel: string, x: FormExtras = {}): VNode<any> {
  return h(
    "form",
    { onSubmit: s.onSubmit, onInput: x.onField, onChange: x.onField, "aria-label": label, class: "form", noValidate: true },
    [
      children,
      h("div", { class: "buttons" }, [
        h("button", { type: "submit", disabled: s.busy }, s.busy ? "Working…" : submitLabel),
        x.buttons ?? null,
      ]),
    ],
  );
}

/** The form's values by name (checkboxes as "on" when checked; multi-selects as arrays). */
export function values(f: HTMLFormElement): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const el of Array.from(f.elements) as (HTMLInputElement | HTMLSelectElement)[]) {
    if (!el.name) continue;
    if (el instanceof HTMLSelectElement && el.multiple) out[el.name] = Array.from(el.selectedOptions).map((o) => o.value);
    else if (el instanceof HTMLInputElement && el.type === "checkbox") out[el.name] = el.checked ? "on" : "";
    else out[el.name] = el.value;
  }
  return out;
}
