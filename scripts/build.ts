// `bun run build`: one self-contained executable at dist/switchyard. Migrations (both dialects), the
// built-in catalog and the docs are imported as modules, and the console's bundle is embedded as files
// (src/console/assets.ts reads them), so the binary needs no files beside it.
import { $ } from "bun";
import { mkdir } from "node:fs/promises";
import { bundleConsole, EMBEDDED_CSS, EMBEDDED_JS } from "../src/console/assets";

const out = process.env.SWITCHYARD_BUILD_OUT ?? "dist/switchyard";
const assets = await bundleConsole();
const dir = "dist/console";
await mkdir(dir, { recursive: true });
await Bun.write(`${dir}/${EMBEDDED_JS}`, assets.js);
await Bun.write(`${dir}/${EMBEDDED_CSS}`, assets.css);
await $`bun build --compile --minify --sourcemap --asset-naming=[name].[ext] src/main.ts ${dir}/${EMBEDDED_JS} ${dir}/${EMBEDDED_CSS} --outfile ${out}`;
console.log(`built ${out} (console script ${assets.js.length} bytes, ${Bun.gzipSync(assets.js).length} gzipped)`);
