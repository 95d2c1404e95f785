// The wire format of shared route health (redis-health-sync.ts): one batch of an instance's samples as
// compact JSON arrays, with each sample's age at the flush instead of its timestamp, so a receiver
// places it on its own clock and clocks that disagree between machines do not matter.
import type { FailureSample, SuccessSample } from "./health";

/** [0, key, ageMs, latencyMs, ttftMs, tps]: a success. */
type WireSuccess = [0, string, number, number | null, number | null, number | null];
/** [1, key, ageMs, retryAfterMs, workspaceId, status, code]: a failure. */
type WireFailure = [1, string, number, number | null, string | null, number | null, string | null];
/** [2, key, ageMs, ttftMs]: a stream's first token (its outcome follows as a success or a failure). */
type WireFirstToken = [2, string, number, number | null];
export type WireSample = WireSuccess | WireFailure | WireFirstToken;

export interface WireBatch {
  /** The publishing instance: its own batches come back through the subscription and are skipped. */
  o: string;
  /** Its batch sequence number (from 0 per process), so a batch replayed from the log is applied once. */
  q: number;
  /** Its clock at the flush (epoch ms): only the warm-start replay reads it, to know how old a batch is. */
  t: number;
  s: WireSample[];
}

export type Sample = { kind: 0; sample: SuccessSample } | { kind: 1; sample: FailureSample } | { kind: 2; sample: SuccessSample };

/** The longest age a sample may claim: a buffer that waited through a long Redis outage sends nothing older. */
export const MAX_SAMPLE_AGE_MS = 60_000;

const round = (x: number | undefined, digits: number): number | null => {
  if (x === undefined || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

export function encodeSuccess(key: string, age: number, s: SuccessSample): WireSuccess {
  return [0, key, age, round(s.latencyMs, 1), round(s.ttftMs, 1), round(s.tps, 2)];
}

export function encodeFirstToken(key: string, age: number, s: SuccessSample): WireFirstToken {
  return [2, key, age, round(s.ttftMs, 1)];
}

export function encodeFailure(key: string, age: number, s: FailureSample): WireFailure {
  return [1, key, age, round(s.retryAfterMs, 0), s.workspaceId ?? null, s.status ?? null, s.code ?? null];
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The batch, or null when the text is not one (another version's format, or noise on the channel). */
export function parseBatch(text: string): WireBatch | null {
  let b: unknown;
  try {
    b = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof b !== "object" || b === null) return null;
  const { o, q, t, s } = b as Record<string, unknown>;
  if (typeof o !== "string" || num(q) === undefined || num(t) === undefined || !Array.isArray(s)) return null;
  return b as WireBatch;
}

/** One sample of a parsed batch as the HealthStore takes it, with its age clamped; null when malformed. */
export function decodeSample(w: unknown): { key: string; age: number; s: Sample } | null {
  if (!Array.isArray(w) || typeof w[1] !== "string") return null;
  const age = Math.min(Math.max(num(w[2]) ?? 0, 0), MAX_SAMPLE_AGE_MS);
  if (w[0] === 0) {
    const sample: SuccessSample = { latencyMs: num(w[3]) ?? Number.NaN };
    const ttftMs = num(w[4]);
    const tps = num(w[5]);
    if (ttftMs !== undefined) sample.ttftMs = ttftMs;
    if (tps !== undefined) sample.tps = tps;
    return { key: w[1], age, s: { kind: 0, sample } };
  }
  if (w[0] === 1) {
    const sample: FailureSample = {};
    const retryAfterMs = num(w[3]);
    const workspaceId = str(w[4]);
    const status = num(w[5]);
    const code = str(w[6]);
    if (retryAfterMs !== undefined) sample.retryAfterMs = retryAfterMs;
    if (workspaceId !== undefined) sample.workspaceId = workspaceId;
    if (status !== undefined) sample.status = status;
    if (code !== undefined) sample.code = code;
    return { key: w[1], age, s: { kind: 1, sample } };
  }
  if (w[0] === 2) {
    const ttftMs = num(w[3]);
    if (ttftMs === undefined) return null;
    return { key: w[1], age, s: { kind: 2, sample: { latencyMs: Number.NaN, ttftMs } } };
  }
  return null;
}
