#!/usr/bin/env bun
// Entry. `serve` first makes sure the process runs with its runtime settings (platform/tuning/runtime-env.ts:
// that may re-execute the process, so it comes before the rest of the program loads; not with
// SWITCHYARD_TUNING=off), then the command runs (cli/run.ts).
import { startsServer } from "./config/args";
import { ensureRuntimeSettings } from "./platform/tuning/runtime-env";

const argv = Bun.argv.slice(2);
if (startsServer(argv)) {
  await ensureRuntimeSettings(async () => {
    const { parseArgs, tuningSwitch } = await import("./config/load");
    return tuningSwitch(process.env, parseArgs(argv).envFlags) === "on";
  });
}
const { main } = await import("./cli/run");
main(argv);
