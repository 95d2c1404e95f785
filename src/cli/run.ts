// The commands: argv → config → dependencies → command. `serve` (default) listens and drains on
// SIGTERM/SIGINT. Loaded by the entry (src/main.ts) once the process has its runtime settings.
import { ConfigError, loadConfig, parseArgs } from "../config/load";
import { createDeps, type Deps } from "../deps";
import { createApp, VERSION } from "../app";
import { bootstrap } from "./bootstrap";
import { UsageError, creditsAdd, keyCreate, workspaceCreate } from "./commands";
import { raceDeadline } from "../platform/deadline";

const HELP = `switchyard ${VERSION} — self-hostable model routing gateway

Usage: switchyard [command] [--flags]

Commands:
  serve (default)                                  run the server (migrates first unless --no-migrate)
  migrate                                          apply pending migrations and exit
  workspace create --name N                        create a workspace; prints its record
  key create --workspace ID --name N --scopes a,b  create an API key (--scopes all for every scope); prints the key once
  credits add --workspace ID --usd X               add credit (negative X removes); prints the new balance
  version                                          print the version

Every command takes --json (print JSON) and --help.
Configuration (env var or --flag): PORT/--port, HOST/--host, DATABASE_URL/--database-url, REDIS_URL/--redis-url,
REDIS_PREFIX, SWITCHYARD_CONFIG/--config, SWITCHYARD_ADMIN_KEY/--admin-key, SWITCHYARD_MASTER_KEY/--master-key,
SWITCHYARD_LOG_LEVEL/--log-level, SWITCHYARD_TRUSTED_PROXIES, <PROVIDER>_API_KEY.`;

function print(value: unknown, json: boolean): void {
  if (json) process.stdout.write(JSON.stringify(value) + "\n");
  else process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

async function serve(deps: Deps, migrate: boolean): Promise<void> {
  const boot = await bootstrap(deps, { migrate });
  await deps.start();
  deps.tuning.start();
  const app = createApp(deps);
  app.listen({ port: deps.config.port, hostname: deps.config.host, idleTimeout: 0 });
  const port = app.server?.port;
  if (boot.generatedAdminKey) {
    // Printed once listening, so that the console's address has the real port.
    const host = deps.config.host === "0.0.0.0" || deps.config.host === "::" ? "localhost" : deps.config.host;
    process.stdout.write(
      `\n  Admin API key (shown once, store it now):\n\n    ${boot.generatedAdminKey}\n\n  Default workspace: ${boot.workspaceId}\n\n  Console: http://${host}:${port}/console (sign in with the key)\n\n`,
    );
  }
  deps.logger.info("listening", { host: deps.config.host, port, version: VERSION });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.state.shuttingDown = true;
    deps.logger.info("shutting down", { signal });
    // Stop accepting; let in-flight requests and streams finish for up to 10 s.
    const graceful = app.server?.stop(false);
    const timedOut = graceful ? await raceDeadline([graceful], 10_000) : false;
    if (timedOut) await app.server?.stop(true);
    await deps.close();
    const gc = deps.tuning.stats();
    deps.logger.info("stopped", { forced: timedOut, ...(gc ? { gc } : {}) });
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const [cmd = "serve", sub] = args.positionals;
  const json = args.options.json === true;
  if (args.options.help || cmd === "help") {
    process.stdout.write(HELP + "\n");
    return 0;
  }
  if (cmd === "version") {
    print(json ? { version: VERSION } : VERSION, json);
    return 0;
  }
  const config = loadConfig(process.env, args.envFlags);
  const deps = await createDeps(config);
  if (cmd === "serve") {
    await serve(deps, args.options["no-migrate"] !== true);
    return -1; // keep running
  }
  try {
    if (cmd === "migrate") {
      await deps.db.migrate();
      print({ migrated: true }, json);
      return 0;
    }
    // Only `serve` generates an admin key (and prints it): a CLI command would have nowhere to show it.
    await bootstrap(deps, { migrate: true, generateAdminKey: false });
    const key = `${cmd} ${sub ?? ""}`.trim();
    const handlers: Record<string, () => Promise<unknown>> = {
      "workspace create": () => workspaceCreate(deps, args.options),
      "key create": () => keyCreate(deps, args.options),
      "credits add": () => creditsAdd(deps, args.options),
    };
    const handler = handlers[key];
    if (!handler) throw new UsageError(`unknown command "${key}"; run switchyard --help`);
    print(await handler(), json);
    return 0;
  } finally {
    await deps.close();
  }
}

/** Runs the command `argv` names; exits when it is done (serve keeps running). */
export function main(argv: string[]): void {
  run(argv).then(
    (code) => {
      if (code >= 0) process.exit(code);
    },
    (err: unknown) => {
      const known = err instanceof ConfigError || err instanceof UsageError;
      const msg = err instanceof Error ? err.message : String(err);
      process.stderr.write(`switchyard: ${known ? msg : `cannot start: ${msg}`}\n`);
      process.exit(known ? 2 : 1);
    },
  );
}
