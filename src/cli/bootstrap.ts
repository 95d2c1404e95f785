// First-start duties shared by `serve` and the CLI: migrate, the default workspace, the admin key.
import type { Deps } from "../deps";
import { SCOPES } from "../auth/scopes";
import { hashApiKey } from "../auth/key-format";

export interface BootstrapResult {
  workspaceId: string;
  /** A generated admin key, to print once; undefined when one was configured or keys already exist. */
  generatedAdminKey?: string;
}

export async function bootstrap(deps: Deps, opts: { migrate: boolean; generateAdminKey?: boolean }): Promise<BootstrapResult> {
  if (opts.migrate) await deps.db.migrate();
  const ws = await deps.repos.workspaces.ensureDefault();
  const admin = deps.config.adminKey;
  if (admin) {
    if (!(await deps.repos.apiKeys.byHash(hashApiKey(admin)))) {
      await deps.repos.apiKeys.create({ workspaceId: ws.id, name: "admin", scopes: [...SCOPES], key: admin });
    }
    return { workspaceId: ws.id };
  }
  if (opts.generateAdminKey === false || (await deps.repos.apiKeys.count()) > 0) return { workspaceId: ws.id };
  const { key } = await deps.repos.apiKeys.create({ workspaceId: ws.id, name: "admin", scopes: [...SCOPES] });
  return { workspaceId: ws.id, generatedAdminKey: key };
}
