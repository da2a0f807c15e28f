// Scopes and filters of the SQL memory store's reads (docs/memory.md#scopes-and-filters) as SQL on alias `t`: the
// scope columns (user_id, agent_id, session_id, indexed with the brain by migration 27), relation, entity, tValid
// range, and metadata equality (an edge's through its episode), the same rules as the in-memory store's
// (`episodeMatches` / `edgeMatches` in @mountkit/memory).
import type { EdgeFilter, EpisodeFilter, MetadataValue, ScopeFilter } from "@mountkit/memory";
import { type RawBuilder, sql } from "kysely";

export const SCOPE_COLUMNS = { userId: "user_id", agentId: "agent_id", sessionId: "session_id" } as const;

/** The scope columns of a record, null when unscoped on that axis. */
export const scopeRow = (r: { userId?: string; agentId?: string; sessionId?: string }) => ({
  user_id: r.userId ?? null,
  agent_id: r.agentId ?? null,
  session_id: r.sessionId ?? null,
});

/** The record's scope fields from its row, only the set ones (records omit an unscoped axis). */
export function scopeOfRow(r: Record<string, unknown>): { userId?: string; agentId?: string; sessionId?: string } {
  const out: { userId?: string; agentId?: string; sessionId?: string } = {};
  for (const [field, col] of Object.entries(SCOPE_COLUMNS)) {
    const v = r[col];
    if (typeof v === "string") out[field as keyof typeof SCOPE_COLUMNS] = v;
  }
  return out;
}

function scopeConditions(f: ScopeFilter | undefined, alias: string): RawBuilder<unknown>[] {
  if (!f) return [];
  const out: RawBuilder<unknown>[] = [];
  for (const [field, col] of Object.entries(SCOPE_COLUMNS)) {
    const want = f[field as keyof ScopeFilter];
    if (want === undefined) continue;
    const c = sql.ref(`${alias}.${col}`);
    out.push(want === null ? sql`${c} is null` : sql`${c} = ${want}`);
  }
  return out;
}

/** `metadata` (a JSON text column) holds `key` with exactly `value`: typed on SQLite, jsonb equality on PostgreSQL. */
function metadataCondition(pg: boolean, column: RawBuilder<unknown>, key: string, value: MetadataValue): RawBuilder<unknown> {
  if (pg) return sql`((${column})::jsonb -> ${key}::text) = ${JSON.stringify(value)}::jsonb`;
  // keys are letters, digits, '_' and '-' (the wire checks it): quoted, they make a plain JSON path
  const path = `$."${key.replace(/["\\]/g, "")}"`;
  if (value === null) return sql`json_type(${column}, ${path}) = 'null'`;
  if (typeof value === "boolean") return sql`json_type(${column}, ${path}) = ${value ? "true" : "false"}`;
  if (typeof value === "number")
    return sql`(json_type(${column}, ${path}) in ('integer', 'real') and json_extract(${column}, ${path}) = ${value})`;
  return sql`(json_type(${column}, ${path}) = 'text' and json_extract(${column}, ${path}) = ${value})`;
}

function metadataConditions(pg: boolean, m: Record<string, MetadataValue> | undefined, alias: string): RawBuilder<unknown>[] {
  if (!m) return [];
  return Object.entries(m).map(([k, v]) => metadataCondition(pg, sql.ref(`${alias}.metadata`), k, v));
}

const and = (conditions: RawBuilder<unknown>[]) => (conditions.length ? sql`(${sql.join(conditions, sql` and `)})` : undefined);

/** Scope only (findCurrentEdges, listEntities' edges); undefined when it filters nothing. */
export const scopeSql = (f: ScopeFilter | undefined, alias = "t") => and(scopeConditions(f, alias));

/** An episode filter on alias `t`; undefined when it filters nothing. */
export function episodeFilterSql(pg: boolean, f: EpisodeFilter | undefined): RawBuilder<unknown> | undefined {
  if (!f) return undefined;
  return and([...scopeConditions(f, "t"), ...metadataConditions(pg, f.metadata, "t")]);
}

/** An edge filter on alias `t`; metadata is its source episode's. Undefined when it filters nothing. */
export function edgeFilterSql(pg: boolean, f: EdgeFilter | undefined): RawBuilder<unknown> | undefined {
  if (!f) return undefined;
  const c = scopeConditions(f, "t");
  if (f.relations) c.push(f.relations.length ? sql`t.relation in (${sql.join([...f.relations])})` : sql`1 = 0`);
  if (f.entityId !== undefined) c.push(sql`(t.source = ${f.entityId} or t.target = ${f.entityId})`);
  if (f.validFrom !== undefined) c.push(sql`t.t_valid >= ${f.validFrom}`);
  if (f.validTo !== undefined) c.push(sql`t.t_valid <= ${f.validTo}`);
  const m = metadataConditions(pg, f.metadata, "ep");
  if (m.length)
    c.push(
      sql`exists (select 1 from memory_episodes ep where ep.brain_id = t.brain_id and ep.id = t.episode_id and ${sql.join(m, sql` and `)})`,
    );
  return and(c);
}

/** `a and b`, either absent. */
export function both(a: RawBuilder<unknown> | undefined, b: RawBuilder<unknown> | undefined): RawBuilder<unknown> | undefined {
  if (!a) return b;
  if (!b) return a;
  return sql`${a} and ${b}`;
}
