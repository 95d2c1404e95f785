// API key storage: only the hash and a display prefix of a key are kept.
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { Type, type Static } from "@sinclair/typebox";
import type { Database, Orm } from "../../platform/db/database";
import { newId } from "../../platform/ids";
import { displayPrefix, generateApiKey, hashApiKey } from "../../auth/key-format";
import { SCOPES, type Scope } from "../../auth/scopes";
import { Iso, IsoOrNull, listOf, Propagation } from "../response-schemas";

export interface ApiKeyRow {
  id: string;
  workspaceId: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
  scopes: Scope[];
  playground: boolean;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

type Raw = typeof import("../../platform/db/schema-sqlite").apiKeys.$inferSelect;
const fromRaw = (r: Raw): ApiKeyRow => ({ ...r, scopes: JSON.parse(r.scopes) as Scope[] });

export interface NewApiKey {
  workspaceId: string;
  name: string;
  scopes: Scope[];
  expiresAt?: number | null;
  playground?: boolean;
  /** Use this exact key (SWITCHYARD_ADMIN_KEY); otherwise one is generated. */
  key?: string;
}

export function apiKeyRepo(db: Database) {
  const t = db.t.apiKeys;
  // Built once, on first use (after migrations): the key cache re-reads each key in use every 2 s, and
  // building the query each time (drizzle's builder, run too rarely to be optimised) cost more than the read.
  const buildByHash = () =>
    db.orm
      .select()
      .from(t)
      .where(eq(t.keyHash, sql.placeholder("hash")))
      .limit(1)
      .prepare();
  let byHashQuery: ReturnType<typeof buildByHash> | undefined;
  return {
    async byHash(hash: string): Promise<ApiKeyRow | undefined> {
      const rows = await (byHashQuery ??= buildByHash()).execute({ hash });
      return rows[0] && fromRaw(rows[0]);
    },
    async get(workspaceId: string, id: string): Promise<ApiKeyRow | undefined> {
      const rows = await db.orm
        .select()
        .from(t)
        .where(and(eq(t.id, id), eq(t.workspaceId, workspaceId)))
        .limit(1);
      return rows[0] && fromRaw(rows[0]);
    },
    async list(workspaceId: string, includeRevoked: boolean, includePlayground = false): Promise<ApiKeyRow[]> {
      const cond = [eq(t.workspaceId, workspaceId)];
      if (!includePlayground) cond.push(eq(t.playground, false));
      if (!includeRevoked) cond.push(isNull(t.revokedAt));
      const rows = await db.orm
        .select()
        .from(t)
        .where(and(...cond))
        .orderBy(asc(t.createdAt));
      return rows.map(fromRaw);
    },
    async count(): Promise<number> {
      const rows = await db.orm.select({ id: t.id }).from(t).limit(1);
      return rows.length;
    },
    /** Creates a key; returns the record and the full key (shown once). In `orm`'s transaction if given. */
    async create(input: NewApiKey, orm?: Orm): Promise<{ row: ApiKeyRow; key: string }> {
      const key = input.key ?? generateApiKey();
      const now = Date.now();
      const raw: Raw = {
        id: newId(),
        workspaceId: input.workspaceId,
        name: input.name,
        keyHash: hashApiKey(key),
        keyPrefix: displayPrefix(key),
        scopes: JSON.stringify(input.scopes),
        playground: input.playground ?? false,
        createdAt: now,
        updatedAt: now,
        expiresAt: input.expiresAt ?? null,
        lastUsedAt: null,
        revokedAt: null,
      };
      if (orm) await orm.insert(t).values(raw);
      else
        await db.tx(async (o) => {
          await o.insert(t).values(raw);
        });
      return { row: fromRaw(raw), key };
    },
    async update(
      workspaceId: string,
      id: string,
      patch: { name?: string; scopes?: Scope[]; expiresAt?: number | null; revokedAt?: number },
      orm?: Orm,
    ): Promise<ApiKeyRow | undefined> {
      const set: Partial<Raw> = { updatedAt: Date.now() };
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.scopes !== undefined) set.scopes = JSON.stringify(patch.scopes);
      if (patch.expiresAt !== undefined) set.expiresAt = patch.expiresAt;
      if (patch.revokedAt !== undefined) set.revokedAt = patch.revokedAt;
      const run = (o: Orm) =>
        o
          .update(t)
          .set(set)
          .where(and(eq(t.id, id), eq(t.workspaceId, workspaceId)))
          .returning();
      const rows = orm ? await run(orm) : await db.tx(run);
      return rows[0] && fromRaw(rows[0]);
    },
    async touch(ids: string[], at: number): Promise<void> {
      if (ids.length === 0) return;
      await db.tx(async (o) => {
        for (const id of ids) await o.update(t).set({ lastUsedAt: at }).where(eq(t.id, id));
      });
    },
  };
}
export type ApiKeyRepo = ReturnType<typeof apiKeyRepo>;

function iso(ms: number): string;
function iso(ms: number | null): string | null;
function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export const ApiKey = Type.Object({
  api_key_id: Type.String(),
  workspace_id: Type.String(),
  name: Type.String(),
  key_prefix: Type.String({ description: "the key's first characters, for display" }),
  scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s)))),
  playground: Type.Boolean(),
  created_at: Iso,
  updated_at: Iso,
  expires_at: IsoOrNull,
  last_used_at: IsoOrNull,
  revoked_at: IsoOrNull,
  propagation_status: Propagation,
});
export const ApiKeyList = listOf("api_keys", ApiKey);
/** The create response: the full key, shown this once. */
export const ApiKeyCreated = Type.Composite([ApiKey, Type.Object({ key: Type.String({ description: "the full key, shown once" }) })]);

export const renderApiKey = (k: ApiKeyRow, propagationStatus: "pending" | null = null): Static<typeof ApiKey> => ({
  api_key_id: k.id,
  workspace_id: k.workspaceId,
  name: k.name,
  key_prefix: k.keyPrefix,
  scopes: k.scopes,
  playground: k.playground,
  created_at: iso(k.createdAt),
  updated_at: iso(k.updatedAt),
  expires_at: iso(k.expiresAt),
  last_used_at: iso(k.lastUsedAt),
  revoked_at: iso(k.revokedAt),
  propagation_status: propagationStatus,
});
