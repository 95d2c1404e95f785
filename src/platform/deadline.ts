// Waiting for work with a deadline, leaving nothing behind. `Promise.race([work, Bun.sleep(ms)])` keeps
// the losing sleep armed, and an armed timer keeps Bun's event loop alive: a record writer's drain that
// finished in milliseconds held its script for the whole 60 s timeout (record-writer-exit.test.ts).

/**
 * Waits until the first of `work` settles or `ms` have passed, whichever comes first, then clears the
 * deadline's timer. Resolves true when the deadline came first; a rejection of `work` passes through.
 */
export async function raceDeadline(work: readonly Promise<unknown>[], ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), ms)));
  try {
    return await Promise.race([...work.map((p) => p.then(() => false as const)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `work`'s value, or `fallback()`'s once `ms` have passed first (the timer is cleared either way). The
 * work is not cancelled: a late result is dropped, a late rejection is swallowed.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, fallback: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback()), ms)));
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
