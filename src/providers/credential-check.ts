// The shared shape of a BYOK credential check: one cheap authenticated GET, bounded by a timeout.
// 401/403 (and whatever the adapter says means "rejected") → invalid; network error, timeout, 5xx
// and other surprises → unavailable, so the caller can answer a retryable 502.
import type { CredentialCheck } from "./types";

export interface CredentialProbe {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  fetchImpl: typeof fetch;
  /** Extra "credential rejected" rule for providers that do not answer 401 (Gemini answers 400). */
  isRejected?: (status: number, bodyText: string) => boolean;
}

export async function probeCredential(probe: CredentialProbe): Promise<CredentialCheck> {
  let res: Response;
  try {
    // Not following redirects: the secret being checked would go wherever they point (upstream-errors.ts).
    res = await probe.fetchImpl(probe.url, {
      method: "GET",
      headers: probe.headers,
      redirect: "manual",
      signal: AbortSignal.timeout(probe.timeoutMs),
    });
  } catch (err) {
    const timedOut = err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError");
    return { ok: false, kind: "unavailable", message: timedOut ? "Provider did not answer in time" : "Provider could not be reached" };
  }
  const bodyText = await res.text().catch(() => "");
  // A rate-limited answer still proves the key authenticated.
  // No detectedTier: a models listing carries no rate-limit headers that map to a tier name.
  if (res.ok || res.status === 429) return { ok: true };
  if (res.status === 401 || res.status === 403 || probe.isRejected?.(res.status, bodyText)) {
    return { ok: false, kind: "invalid", message: `Provider rejected the credential (HTTP ${res.status})` };
  }
  return { ok: false, kind: "unavailable", message: `Provider answered HTTP ${res.status} during validation` };
}
