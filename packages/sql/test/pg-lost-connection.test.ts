// A PostgreSQL connection that loses its server in the middle of a transaction (the database dropped, an
// administrator's pg_terminate_backend) fails the transaction's next statement; it never crashes the process with
// an unhandled "error" event, and the pool's next query works on a fresh connection.
import { coreMigrations } from "@mountkit/sql";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { createTestDatabase, forEachDatabase } from "../../../test/sql-targets.js";

forEachDatabase("PostgreSQL connection lost mid-transaction", () => {
  it("fails the transaction, keeps the process, and serves the next query", async () => {
    const target = await createTestDatabase("postgres");
    const db = await target.open({ migrations: [coreMigrations] });
    const admin = await target.open({ migrations: [] });
    const unhandled: unknown[] = [];
    const onError = (e: unknown) => unhandled.push(e);
    process.on("uncaughtException", onError);
    try {
      const outcome = await db.kysely
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(admin.kysely);
          // the termination reaches the idle, checked-out client between two statements
          await new Promise((r) => setTimeout(r, 300));
          await sql`select 1`.execute(trx);
          return "committed";
        })
        .catch((e: Error) => `failed: ${e.message}`);
      expect(outcome).toMatch(/^failed: /);
      expect(unhandled).toEqual([]);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db.kysely);
      expect(Number(rows[0]!.one)).toBe(1);
    } finally {
      process.off("uncaughtException", onError);
      await admin.close();
      await db.close();
      await target.drop();
    }
  });
}, ["postgres"]);
