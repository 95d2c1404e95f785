// Data loading for a page: the API's answer, its error, and a reload after a change.
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, type Row } from "./api";

export interface Loaded {
  data: Row | null;
  error: string | null;
  reload: () => void;
}

export function useApi(path: string | null): Loaded {
  const [state, set] = useState<{ data: Row | null; error: string | null }>({ data: null, error: null });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    set((s) => ({ data: tick > 0 ? s.data : null, error: null }));
    api(path).then(
      (data) => live && set({ data, error: null }),
      (e: Error) => live && set({ data: null, error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
