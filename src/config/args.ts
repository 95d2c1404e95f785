// The command line's shape, apart from what its flags mean (config/load.ts parseArgs gives them meaning):
// positionals, and flags as `--name=value`, `--name value` (the next argument, unless it is a flag) or a
// bare `--name`. Free of imports, so the entry can tell the command before the rest of the program loads.

export interface ArgTokens {
  positionals: string[];
  flags: [name: string, value: string | true][];
}

export function tokenizeArgs(argv: readonly string[]): ArgTokens {
  const out: ArgTokens = { positionals: [], flags: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) {
      out.positionals.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    let value: string | true = true;
    if (eq > 0) value = a.slice(eq + 1);
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) value = argv[++i]!;
    out.flags.push([name, value]);
  }
  return out;
}

/** Whether the arguments start the server: the `serve` command (the first positional, or none), unless `--help` asks for the usage. */
export function startsServer(argv: readonly string[]): boolean {
  const { positionals, flags } = tokenizeArgs(argv);
  return (positionals[0] ?? "serve") === "serve" && !flags.some(([name]) => name === "help");
}
