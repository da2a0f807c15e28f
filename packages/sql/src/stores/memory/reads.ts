// The read shapes the SQL memory store's records share: one row of the brain by id, many in the order
// asked, and newest-first keyset pages.
import type { Page, PageAfter } from "@mountkit/memory";
import type { RawBuilder } from "kysely";
import { type Db, inOrder, num, type Row } from "./rows.js";

/** Reads of the brain's rows in `from` by id: `one`, and `many` in the order of the ids asked. */
export function rowsById<T extends { id: string }>(db: Db, from: string, columns: readonly string[], map: (r: Row) => T) {
  const select = (brainId: string) =>
    db
      .selectFrom(from)
      .select(columns as string[])
      .where("brain_id", "=", brainId);
  return {
    async one(brainId: string, id: string): Promise<T | null> {
      const r = await select(brainId).where("id", "=", id).executeTakeFirst();
      return r ? map(r) : null;
    },
    async many(brainId: string, ids: string[]): Promise<T[]> {
      if (!ids.length) return [];
      const rows = await select(brainId)
        .where("id", "in", [...new Set(ids)])
        .execute();
      return inOrder(ids, rows.map(map));
    },
  };
}

/** Newest-first keyset page over `from` ordered by (`timeCol` desc, `idCol` desc). */
export async function page<T>(
  db: Db,
  from: string,
  timeCol: string,
  idCol: string,
  brainId: string,
  limit: number,
  after: PageAfter | null | undefined,
  map: (r: Row) => T,
  where?: RawBuilder<unknown>,
): Promise<Page<T>> {
  if (limit <= 0) return { items: [], next: null };
  let q = db.selectFrom(`${from} as t`).selectAll("t").where("t.brain_id", "=", brainId);
  if (where) q = q.where(where as RawBuilder<boolean>);
  if (after)
    q = q.where((eb) =>
      eb.or([
        eb(`t.${timeCol}`, "<", after.createdAt),
        eb.and([eb(`t.${timeCol}`, "=", after.createdAt), eb(`t.${idCol}`, "<", after.id)]),
      ]),
    );
  const rows = await q
    .orderBy(`t.${timeCol}`, "desc")
    .orderBy(`t.${idCol}`, "desc")
    .limit(limit + 1)
    .execute();
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items: items.map(map), next: rows.length > limit && last ? { createdAt: num(last[timeCol]), id: last[idCol] } : null };
}
