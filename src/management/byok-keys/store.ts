// BYOK keys for the hot path: per workspace, the default enabled key of each provider with its secret
// already decrypted, so routing never touches the database or the cipher. Refreshed at once after each
// write through this process (refreshWorkspace) and wholesale by reload() for changes made elsewhere.
import { openSecret } from "../../crypto/secret-box";
import type { MasterKey } from "../../platform/master-key";
import type { Logger } from "../../platform/logger";
import { LiveMap } from "../live-map";
import type { ByokRepo, ByokRow } from "./repo";

export interface RoutableByokKey {
  byokKeyId: string;
  /** The decrypted provider secret: pass it upstream, never log or render it. */
  secret: string;
  accountTier: string | null;
}

/** Associated data binding a ciphertext to its row. */
export const byokAad = (row: Pick<ByokRow, "workspaceId" | "id">): string => `byok:${row.workspaceId}:${row.id}`;

export class ByokKeyStore {
  private readonly byWorkspace = new LiveMap<Map<string, RoutableByokKey>>();
  /** Plaintexts by key ID: secrets never change in place, so a reload decrypts only new keys. */
  private readonly plain = new Map<string, string>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly repo: ByokRepo,
    private readonly masterKey: () => MasterKey,
    private readonly logger: Logger,
  ) {}

  defaultKeyFor(workspaceId: string, providerId: string): RoutableByokKey | null {
    return this.byWorkspace.get(workspaceId)?.get(providerId) ?? null;
  }

  async refreshWorkspace(workspaceId: string): Promise<void> {
    const rows = await this.repo.routable(workspaceId);
    this.byWorkspace.set(workspaceId, this.index(rows).get(workspaceId));
  }

  async reload(): Promise<void> {
    await this.byWorkspace.reload(async () => {
      const rows = await this.repo.routable();
      const live = new Set(rows.map((r) => r.id));
      for (const id of this.plain.keys()) if (!live.has(id)) this.plain.delete(id);
      return this.index(rows);
    });
  }

  private index(rows: ByokRow[]): Map<string, Map<string, RoutableByokKey>> {
    const out = new Map<string, Map<string, RoutableByokKey>>();
    // Oldest first, so that if two defaults ever coexist the most recently updated one wins.
    for (const row of [...rows].sort((a, b) => a.updatedAt - b.updatedAt)) {
      const secret = this.decrypt(row);
      if (secret === undefined) continue;
      let m = out.get(row.workspaceId);
      if (!m) out.set(row.workspaceId, (m = new Map()));
      m.set(row.provider, { byokKeyId: row.id, secret, accountTier: row.accountTier });
    }
    return out;
  }

  private decrypt(row: ByokRow): string | undefined {
    const cached = this.plain.get(row.id);
    if (cached !== undefined) return cached;
    const opened = openSecret(this.masterKey(), row, byokAad(row));
    if (!opened.ok) {
      if (!this.warned.has(row.id)) {
        this.warned.add(row.id);
        this.logger.warn("BYOK key cannot be decrypted; it is not used for routing", {
          byok_key_id: row.id,
          workspace_id: row.workspaceId,
          reason: opened.reason,
          master_key_id: row.masterKeyId,
        });
      }
      return undefined;
    }
    this.plain.set(row.id, opened.plaintext);
    return opened.plaintext;
  }
}
