// Row actions (revoke, disable, delete…) that report their outcome above the list, a 202's pending
// propagation included.
import { h, type VNode } from "preact";
import { useState } from "preact/hooks";
import { ApiFailure, type Row } from "./api";

/** What a write's answer adds: a 202 means other gateway instances have not applied it yet. */
export const pending = (r: Row | null | undefined) =>
  r?.propagation_status === "pending" ? " Propagation is pending (202): other gateway instances apply it within 5 seconds." : "";

export interface Action {
  busy: boolean;
  error: string | null;
  notice: string | null;
  /** `done` is said on success (with a 202's pending note), `failed` before the API's message otherwise. */
  run: (done: string, failed: string, call: () => Promise<Row>, after?: () => void) => void;
  /** Say an outcome reached elsewhere (a form's save) in the same place. */
  tell: (notice: string) => void;
}

/** One action at a time, its failure or its outcome said in one place. */
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
  return h("div", { class: "action-status" }, [
    a.error ? h("p", { class: "error", role: "alert" }, a.error) : null,
    h("p", { class: "notice", role: "status" }, a.notice ?? ""),
  ]);
}
