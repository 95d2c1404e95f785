// The console's script and stylesheet. The compiled binary carries them as embedded files (scripts/build.ts
// bundles them first); run from source, they are bundled here once, on first use.
import { join } from "node:path";

export interface ConsoleAssets {
  js: string;
  css: string;
}

export const EMBEDDED_JS = "console-app.js.bundle";
export const EMBEDDED_CSS = "console-app.css.bundle";

/** One script and one stylesheet: the pages' CSS imports (and the chart library's) are bundled into the latter. */
export async function bundleConsole(): Promise<ConsoleAssets> {
  const r = await Bun.build({ entrypoints: [join(import.meta.dir, "app", "main.ts")], target: "browser", minify: true });
  const js = r.outputs.find((o) => o.kind === "entry-point");
  const css = r.outputs.find((o) => o.path.endsWith(".css"));
  if (!r.success || !js || !css) throw new Error(`console bundle failed: ${r.logs.join("\n")}`);
  return { js: await js.text(), css: await css.text() };
}

async function load(): Promise<ConsoleAssets> {
  const file = (name: string) => Bun.embeddedFiles.find((f) => (f as Blob & { name?: string }).name === name);
  const js = file(EMBEDDED_JS);
  const css = file(EMBEDDED_CSS);
  if (js && css) return { js: await js.text(), css: await css.text() };
  return bundleConsole();
}

let cached: Promise<ConsoleAssets> | null = null;
export const consoleAssets = () => (cached ??= load());
