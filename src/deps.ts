// createDeps(config): builds every long-lived dependency once and hands them to the app. Nothing else
// opens connections or reads the environment.
import type { Config } from "./config/load";
import { openDatabase, type Database } from "./platform/db/database";
import { createLogger, type Logger } from "./platform/logger";
import { workspaceRepo, type WorkspaceRepo } from "./management/workspaces/repo";
import { apiKeyRepo, type ApiKeyRepo } from "./management/api-keys/repo";
import { ApiKeyCache } from "./auth/key-cache";

export interface Deps {
  config: Config;
  logger: Logger;
  db: Database;
  repos: { workspaces: WorkspaceRepo; apiKeys: ApiKeyRepo };
  keys: ApiKeyCache;
  /** Set while draining on shutdown: /readyz answers 503. */
  state: { shuttingDown: boolean; startedAt: number };
  close(): Promise<void>;
}

export async function createDeps(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<Deps> {
  const db = openDatabase(config.databaseUrl);
  const repos = { workspaces: workspaceRepo(db), apiKeys: apiKeyRepo(db) };
  const keys = new ApiKeyCache(repos.apiKeys);
  return {
    config,
    logger,
    db,
    repos,
    keys,
    state: { shuttingDown: false, startedAt: Date.now() },
    async close() {
      keys.stop();
      await keys.flushTouches();
      await db.close();
    },
  };
}
