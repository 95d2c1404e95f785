// Three settings only the process's start can give. Bun's allocator (mimalloc) gives free memory back each
// time a thread goes idle, at most every MIMALLOC_PURGE_HOLES_MIN_INTERVAL ms (100 by default), and a
// gateway goes idle hundreds of times a second: once a second is enough. Bun's GC timer
// (BUN_GC_TIMER_DISABLE) starts collections the memory governor already paces. Bun's fetch sends at most
// BUN_CONFIG_MAX_HTTP_REQUESTS requests at once (256 by default), which a gateway serving long streams
// through fetch passes. What each buys: docs/tuning.md.
//
// The allocator and Bun read these from the environment once, when the process starts, and Bun exposes no
// call to change them later. So `serve` re-executes itself once, in place (execve: same pid, arguments,
// working directory, file descriptors without close-on-exec, and signals for whoever supervises it), with
// the variables that are missing added — a variable set already is kept, which is also how an operator
// picks another value or keeps the default (MIMALLOC_PURGE_HOLES_MIN_INTERVAL=100, BUN_GC_TIMER_DISABLE=0);
// with all three set, there is no second start. Linux only: the arguments are read back
// from /proc/self/cmdline, which holds them exactly as given (a compiled binary's argv[1] in
// process.argv is its embedded entry, not what was typed).
import { readFileSync } from "node:fs";

/** Throws on bytes that are not UTF-8 (a lenient decoding would replace them). */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export const PURGE_INTERVAL_VAR = "MIMALLOC_PURGE_HOLES_MIN_INTERVAL";
export const PURGE_INTERVAL_MS = "1000";
export const GC_TIMER_VAR = "BUN_GC_TIMER_DISABLE";

/** The settings `serve` runs with, each added when the environment lacks it. */
export const FETCH_MAX_VAR = "BUN_CONFIG_MAX_HTTP_REQUESTS";
/** The largest value Bun accepts. */
export const FETCH_MAX_REQUESTS = "65535";
export const RUNTIME_SETTINGS: Readonly<Record<string, string>> = {
  [PURGE_INTERVAL_VAR]: PURGE_INTERVAL_MS,
  [GC_TIMER_VAR]: "1",
  [FETCH_MAX_VAR]: FETCH_MAX_REQUESTS,
};

export interface Reexec {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** What runtimeReexec reads of the running process. */
export interface ProcessView {
  env: Record<string, string | undefined>;
  platform: string;
  /** The executable's path (process.execPath): its name stays the process's name (ps, pkill). */
  execPath: string;
  /** /proc/self/cmdline's text: the arguments as given, each NUL-terminated; throws when unreadable. */
  cmdline: () => string;
  /** Throws when the environment as the process got it (/proc/self/environ) is not valid UTF-8. */
  checkEnviron: () => void;
}

/**
 * How to start this process again with the runtime settings, or null when it has them all already, the
 * platform is not Linux, or the command line or environment cannot be passed on exactly: arguments and
 * variables go back to execve as strings, and bytes that are not UTF-8 would not survive that.
 */
export function runtimeReexec({ env, platform, execPath, cmdline, checkEnviron }: ProcessView): Reexec | null {
  const missing = Object.keys(RUNTIME_SETTINGS).filter((k) => env[k] === undefined);
  if (platform !== "linux" || missing.length === 0) return null;
  let text: string;
  try {
    text = cmdline();
    checkEnviron();
  } catch {
    return null;
  }
  const args = text.split("\0");
  if (args.at(-1) === "") args.pop();
  if (args.length === 0) return null;
  const next: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) next[k] = v;
  for (const k of missing) next[k] = RUNTIME_SETTINGS[k]!;
  return { file: execPath, args, env: next };
}

/**
 * Re-executes the process with the runtime settings when it lacks one and `tuned()` (asked only then, so
 * that a start with the settings present reads no configuration) says tuning is on; returns only when it
 * does not (settings present, tuning off, not Linux, or execve refused): the server then runs without them.
 */
export async function ensureRuntimeSettings(tuned: () => Promise<boolean>): Promise<void> {
  const plan = runtimeReexec({
    env: process.env,
    platform: process.platform,
    execPath: process.execPath,
    cmdline: () => strictUtf8.decode(readFileSync("/proc/self/cmdline")),
    checkEnviron: () => void strictUtf8.decode(readFileSync("/proc/self/environ")),
  });
  if (plan === null || typeof process.execve !== "function" || !(await tuned())) return;
  try {
    process.execve(plan.file, plan.args, plan.env);
  } catch {
    // execve failed and left this process as it was: serve without the setting.
  }
}
