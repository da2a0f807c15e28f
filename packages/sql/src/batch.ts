// Statements that do not read each other's results, sent together: on SQLite one round trip to the writer thread
// carries them all (inside the caller's transaction when it has one; reads alone outside one go to a reader thread);
// on PostgreSQL they run one after another.
import { timeSlicer } from "@mountkit/core";
import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder } from "kysely";
import { type CheckedQuery, CheckFailed, EXPECT, type Expectation, meets } from "./check.js";
import { batchQuery } from "./sqlite/thread-driver.js";

/** A query builder or raw SQL (`sql```), not yet run. */
export type BatchItem = Compilable | RawBuilder<unknown>;

/**
 * Runs `queries` in order on `db` (a transaction or the database) and answers each one's result. A failure stops the
 * rest; inside a transaction, the caller's rollback undoes the ones before it. `pg`: the database is PostgreSQL.
 * `commits` (SQLite, in a transaction, as the transaction's very last step): the batch carries the COMMIT too, one
 * round trip fewer; nothing may run in the transaction after it.
 */
export async function executeBatch(
  db: Kysely<any>,
  pg: boolean,
  queries: ReadonlyArray<BatchItem>,
  options: { commits?: boolean } = {},
): Promise<QueryResult<unknown>[]> {
  // a raw builder compiles with the executor it is given (a builder ignores it): `db`'s, so the same compiler and checks.
  // A batch of thousands of rows takes tens of milliseconds to compile: the host's loop gets a turn between statements
  const compiled: CompiledQuery[] = [];
  const turn = timeSlicer();
  for (const q of queries) {
    compiled.push((q as { compile(provider: Kysely<any>): CompiledQuery }).compile(db));
    await turn();
  }
  if (!pg && options.commits && db.isTransaction) return (await db.executeQuery(batchQuery(compiled, true))).rows as QueryResult<unknown>[];
  if (compiled.length === 0) return [];
  if (pg || compiled.length === 1) {
    const out: QueryResult<unknown>[] = [];
    for (const c of compiled) {
      const r = await db.executeQuery(c);
      const expect = (c as CheckedQuery)[EXPECT];
      if (expect && !meets(expect, r.rows.length)) throw new CheckFailed(expect.reason);
      out.push(r);
    }
    return out;
  }
  return (await db.executeQuery(batchQuery(compiled))).rows as QueryResult<unknown>[];
}

/**
 * `item` with a check on its rows (see ../check.ts): in a batch, a failed check throws CheckFailed and stops the rest, so
 * a transaction's checks can go in the same batch as its writes and COMMIT. `item` must answer rows (a select, or
 * `returning`).
 */
export function expecting(item: BatchItem, expect: Expectation): BatchItem {
  return {
    compile(db: Kysely<any>) {
      const c = (item as { compile(provider: Kysely<any>): CompiledQuery }).compile(db);
      return { ...c, [EXPECT]: expect } as CheckedQuery;
    },
  } as unknown as BatchItem;
}
