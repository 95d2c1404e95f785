// What the real-client suites (test/integration/inference/sdk-clients-*.test.ts) share: a record of
// every warning or error a client library reports while it reads our answers, so a test can assert
// that a client accepted the response shape silently, not just that it did not throw.

export interface ClientComplaints {
  /** One line per warning or error a client logged (console, process warning, or SDK logger). */
  lines: string[];
  /** A logger for the official openai / @anthropic-ai/sdk clients (their `logger` option). */
  logger: { error(...a: unknown[]): void; warn(...a: unknown[]): void; info(): void; debug(): void };
  /** The AI SDK's `AI_SDK_LOG_WARNINGS` hook. */
  aiSdkWarnings(options: { warnings: unknown[] }): void;
  restore(): void;
}

const line = (kind: string, args: unknown[]) =>
  `${kind}: ${args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : JSON.stringify(a))).join(" ")}`;

/** Starts recording; `restore()` puts console and process warnings back. */
export function recordClientComplaints(): ClientComplaints {
  const lines: string[] = [];
  const { warn, error } = console;
  const emitWarning = process.emitWarning;
  console.warn = (...a: unknown[]) => void lines.push(line("console.warn", a));
  console.error = (...a: unknown[]) => void lines.push(line("console.error", a));
  process.emitWarning = ((w: string | Error) => void lines.push(line("process.emitWarning", [w]))) as typeof process.emitWarning;
  const global = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
  const complaints: ClientComplaints = {
    lines,
    logger: {
      error: (...a) => void lines.push(line("sdk.error", a)),
      warn: (...a) => void lines.push(line("sdk.warn", a)),
      info() {},
      debug() {},
    },
    aiSdkWarnings: ({ warnings }) => void lines.push(line("ai-sdk warning", warnings)),
    restore() {
      console.warn = warn;
      console.error = error;
      process.emitWarning = emitWarning;
      delete global.AI_SDK_LOG_WARNINGS;
    },
  };
  global.AI_SDK_LOG_WARNINGS = complaints.aiSdkWarnings;
  return complaints;
}

/** The mock upstream's default answer, which every client must hand back intact. */
export const MOCK_TEXT = "Hello from the mock upstream.";

export const weatherParameters = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
} as const;
