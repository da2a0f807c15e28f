// SQLite's write-ahead log after a deletion that must leave nothing behind (an erasure): checkpointed into the file and
// truncated, so no frame keeps a page as it was before the delete (the writer runs with secure_delete, so the pages
// written are clean). PostgreSQL has no such step: its VACUUM is the operator's (docs/memory.md#erasure).
import { type Kysely, sql } from "kysely";

/** Checkpoints and truncates the WAL; a reader in the middle of a statement can hold older frames, so it tries a few times. */
export async function truncateWal(db: Kysely<any>): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const r = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    if (!Number(r.rows[0]?.busy)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
