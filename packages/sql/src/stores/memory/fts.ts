// SQLite full-text tables per brain. FTS5's bm25() takes its statistics (document count, document
// frequencies, average length) from the whole FTS table, so a table shared by every brain let one
// brain's corpus reorder another's hits; one FTS5 table per brain and kind keeps ranking per brain and
// confines a match to the brain's own index. A table is named by a hash of the brain id and created on
// the brain's first write; a brain with no table yet has nothing to find.
import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";

export type FtsKind = "episodes" | "entities" | "edges";

export const FTS_TOKENIZER = "unicode61 remove_diacritics 2";

export function ftsTableName(kind: FtsKind, brainId: string): string {
  return `memory_${kind}_fts_${createHash("sha256").update(brainId).digest("hex").slice(0, 24)}`;
}

export function ftsTables(db: Kysely<any>) {
  const known = new Set<string>();
  return {
    /** Creates the brain's table when absent (inside the caller's write transaction). */
    async ensure(trx: Kysely<any>, kind: FtsKind, brainId: string): Promise<string> {
      const name = ftsTableName(kind, brainId);
      if (!known.has(name)) {
        await sql`create virtual table if not exists ${sql.table(name)} using fts5(terms, tokenize = ${sql.lit(FTS_TOKENIZER)})`.execute(
          trx,
        );
        known.add(name);
      }
      return name;
    },
    /** Forgets the brain's tables (dropped with the brain). */
    forget(brainId: string): void {
      for (const kind of ["episodes", "entities", "edges"] as const) known.delete(ftsTableName(kind, brainId));
    },
    /**
     * Runs a write transaction of the brain. A table `ensure` created in it is rolled back with it when it fails, so
     * the brain's tables are then forgotten (the next `ensure` creates them again) instead of remembered as there.
     */
    async writing<T>(brainId: string, transaction: () => Promise<T>): Promise<T> {
      try {
        return await transaction();
      } catch (e) {
        this.forget(brainId);
        throw e;
      }
    },
    /** The brain's table, or null when it has none yet (another process may create it later). */
    async find(kind: FtsKind, brainId: string): Promise<string | null> {
      const name = ftsTableName(kind, brainId);
      if (known.has(name)) return name;
      const r = await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = ${name}`.execute(db);
      if (!Number(r.rows[0]?.n)) return null;
      known.add(name);
      return name;
    },
  };
}
