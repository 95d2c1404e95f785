#!/usr/bin/env bun
// Entry. `serve` first makes sure the process runs with its runtime settings (platform/tuning/runtime-env.ts:
// that may re-execute the process, so it comes before the rest of the program loads), then the command
// runs (cli/run.ts).
import { startsServer } from "./config/args";
import { ensureRuntimeSettings } from "./platform/tuning/runtime-env";

const argv = Bun.argv.slice(2);
if (startsServer(argv)) ensureRuntimeSettings();
const { main } = await import("./cli/run");
main(argv);
