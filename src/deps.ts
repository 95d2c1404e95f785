// createDeps(config): builds every long-lived dependency once and hands them to the app. Nothing else
// opens connections or reads the environment.
import { ConfigError, type Config } from "./config/load";
import { openDatabase, type Database } from "./platform/db/database";
import { createLogger, type Logger } from "./platform/logger";
import { workspaceRepo, type WorkspaceRepo } from "./management/workspaces/repo";
import { apiKeyRepo, type ApiKeyRepo } from "./management/api-keys/repo";
import { ApiKeyCache } from "./auth/key-cache";
import { buildCatalog } from "./catalog/build";
import type { Catalog } from "./catalog/types";
import { HealthStore } from "./routing/health";
import { RecordWriter } from "./metering/record-writer";
import { openGuards, type InferenceDeps } from "./inference/context";

export interface Deps {
  config: Config;
  logger: Logger;
  db: Database;
  repos: { workspaces: WorkspaceRepo; apiKeys: ApiKeyRepo };
  keys: ApiKeyCache;
  catalog: Catalog;
  health: HealthStore;
  records: RecordWriter;
  inference: InferenceDeps;
  /** Set while draining on shutdown: /readyz answers 503. */
  state: { shuttingDown: boolean; startedAt: number };
  close(): Promise<void>;
}

function loadCatalog(config: Config): Catalog {
  try {
    return buildCatalog({ file: config.file, credentialEnv: config.credentialEnv });
  } catch (err) {
    throw new ConfigError(`${config.configPath ?? "built-in catalog"}: ${(err as Error).message}`);
  }
}

export async function createDeps(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<Deps> {
  const catalog = loadCatalog(config);
  const db = openDatabase(config.databaseUrl);
  const repos = { workspaces: workspaceRepo(db), apiKeys: apiKeyRepo(db) };
  const keys = new ApiKeyCache(repos.apiKeys);
  const circuit = config.file.circuit;
  const health = new HealthStore({
    ...(circuit?.failure_threshold ? { failureThreshold: circuit.failure_threshold } : {}),
    ...(circuit?.cooldown_ms ? { cooldownMs: circuit.cooldown_ms } : {}),
  });
  const records = new RecordWriter(db, {
    onError: (err, queued) => logger.error("request records not written; will retry", { error: String(err), queued }),
  });
  const inference: InferenceDeps = {
    catalog,
    health,
    routingDefaults: { get: () => undefined },
    byok: { defaultKeyFor: () => null },
    records,
    guards: openGuards,
    logger,
    fetch: globalThis.fetch,
    keepAliveMs: 15_000,
  };
  return {
    config,
    logger,
    db,
    repos,
    keys,
    catalog,
    health,
    records,
    inference,
    state: { shuttingDown: false, startedAt: Date.now() },
    async close() {
      keys.stop();
      await keys.flushTouches();
      const drained = await records.drain(10_000);
      if (!drained.complete) logger.error("shutdown: request records not written", { remaining: drained.remaining });
      await db.close();
    },
  };
}
