// A bound on a promise a test awaits, so that a hang fails the test with a name instead of its timeout.

/** Settles as `p` does, or rejects naming `what` once `ms` have passed (a hang fails the test, legibly). */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
