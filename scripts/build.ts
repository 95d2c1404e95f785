// `bun run build`: one self-contained executable at dist/switchyard. Migrations (both dialects), the
// built-in catalog and the docs are imported as modules, so the binary needs no files beside it.
import { $ } from "bun";

const out = process.env.SWITCHYARD_BUILD_OUT ?? "dist/switchyard";
await $`bun build --compile --minify --sourcemap src/main.ts --outfile ${out}`;
console.log(`built ${out}`);
