// The customers' daily attachment byte budget in SQL (support migration 7, `sqlAttachmentStore`'s chargeUsage) on
// SQLite and PostgreSQL: concurrent charges, on PostgreSQL from two connections as two processes would, never pass
// the limit together; usage outlives the records it counted; a refund and the prune remove rows.
import { coreMigrations, type SqlDatabase, sqlAttachmentStore, supportMigrations } from "@mountkit/sql";
import type { AttachmentStore } from "@mountkit/support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "../../../test/sql-targets.js";

const DAY = 86_400_000;
const T0 = Date.parse("2026-03-01T00:00:00Z");

forEachDatabase("attachment usage", (dialect) => {
  let target: TestDatabase;
  const dbs: SqlDatabase[] = [];
  let stores: AttachmentStore[] = [];

  beforeAll(async () => {
    target = await createTestDatabase(dialect);
    // PostgreSQL: two connections, as two processes; SQLite: one, its write lock serialises the charges
    for (let i = 0; i < (dialect === "postgres" ? 2 : 1); i++)
      dbs.push(await target.open({ migrations: [coreMigrations, supportMigrations] }));
    stores = dbs.map((db) => sqlAttachmentStore(db));
  });
  afterAll(async () => {
    for (const db of dbs) await db.close();
    await target?.drop();
  });

  const charge = (store: AttachmentStore, id: string, customerId: string, bytes: number, at = T0, limit = 100) =>
    store.chargeUsage({ id, productSlug: "demo", customerId, bytes, at, since: at - DAY, limit });

  it("concurrent charges of one customer never pass the limit together", async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => charge(stores[i % stores.length]!, `par_${i}`, "cust_par", 10)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    const after = await charge(stores[0]!, "par_more", "cust_par", 1);
    expect(after).toEqual({ allowed: false, used: 100, oldestAt: T0 });
  });

  it("counts usage whose attachment record is gone; other customers and products apart; a refund gives the bytes back", async () => {
    const s = stores[0]!;
    expect(await charge(s, "u1", "cust_a", 60)).toEqual({ allowed: true, used: 0, oldestAt: null });
    await s.remove(["u1"]);
    expect(await charge(s, "u2", "cust_a", 60, T0 + 1000)).toEqual({ allowed: false, used: 60, oldestAt: T0 });
    expect((await charge(s, "u3", "cust_b", 60)).allowed).toBe(true);
    expect(
      (await s.chargeUsage({ id: "u4", productSlug: "other", customerId: "cust_a", bytes: 60, at: T0, since: T0 - DAY, limit: 100 }))
        .allowed,
    ).toBe(true);
    await s.refundUsage("u1");
    expect(await charge(s, "u5", "cust_a", 60, T0 + 1000)).toEqual({ allowed: true, used: 0, oldestAt: null });
  });

  it("leaves the window after 24 hours, and the prune deletes only rows past it", async () => {
    const s = stores[0]!;
    expect((await charge(s, "w1", "cust_w", 100)).allowed).toBe(true);
    expect((await charge(s, "w2", "cust_w", 1, T0 + DAY - 1)).allowed).toBe(false);
    expect(await charge(s, "w3", "cust_w", 100, T0 + DAY)).toEqual({ allowed: true, used: 0, oldestAt: null });
    const pruned = await s.pruneUsage(T0 + DAY);
    expect(pruned).toBeGreaterThanOrEqual(1);
    // w3 at T0 + DAY stays and counts
    expect(await charge(s, "w4", "cust_w", 1, T0 + DAY + 1)).toEqual({ allowed: false, used: 100, oldestAt: T0 + DAY });
  });
});
