// Batches on the SQLite writer thread (src/batch.ts): statements that do not read each other's answers go in one round
// trip, inside the caller's transaction; a failure stops the rest and the transaction rolls back; a committing batch
// ends its transaction; a transaction's BEGIN travels with its first statement, so a BEGIN that cannot get the lock
// fails that transaction's every statement and none runs outside it. A checked statement that does not answer as
// expected stops its batch (before its COMMIT) with CheckFailed. Reads alone outside a transaction go to a reader thread.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isKitError } from "@mountkit/core";
import { openDatabase, type SqlDatabase } from "@mountkit/sql";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { executeBatch, expecting } from "../src/batch.js";
import { CheckFailed } from "../src/check.js";
import { exited, holdLock } from "./fixtures/lock-holder.js";

describe("SQLite batches", () => {
  let dir: string;
  let db: SqlDatabase;
  const ids = async () => (await db.kysely.selectFrom("t").select("id").orderBy("id").execute()).map((r) => r.id as number);
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "mountkit-batches-"));
    db = await openDatabase({ filename: join(dir, "t.sqlite"), busyTimeoutMs: 800 });
    await sql`create table t (id integer primary key, v text)`.execute(db.kysely);
    await db.kysely.insertInto("t").values({ id: 1, v: "one" }).execute();
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs in order in the caller's transaction and answers each statement", async () => {
    const answers = await db.kysely
      .transaction()
      .execute((trx) =>
        executeBatch(trx, false, [
          trx.insertInto("t").values({ id: 2, v: "two" }),
          trx.selectFrom("t").select(["id", "v"]).orderBy("id"),
          trx.updateTable("t").set({ v: "ONE" }).where("id", "=", 1),
          sql`select count(*) as n from t`,
        ]),
      );
    expect(answers).toHaveLength(4);
    // the select saw the insert before it; the update's count is its own
    expect(answers[1]!.rows).toEqual([
      { id: 1, v: "one" },
      { id: 2, v: "two" },
    ]);
    expect(answers[2]!.numAffectedRows).toBe(1n);
    expect(answers[3]!.rows).toEqual([{ n: 2 }]);
    expect(await ids()).toEqual([1, 2]);
  });

  it("a failing statement stops the rest, keeps the driver's code, and the transaction rolls back", async () => {
    const err = await db.kysely
      .transaction()
      .execute((trx) =>
        executeBatch(trx, false, [
          trx.insertInto("t").values({ id: 3, v: "three" }),
          trx.insertInto("t").values({ id: 1, v: "again" }),
          trx.insertInto("t").values({ id: 4, v: "four" }),
        ]),
      )
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe("SQLITE_CONSTRAINT_PRIMARYKEY");
    expect(await ids()).toEqual([1]);
    // the writer is clean for the next holder
    await db.kysely.insertInto("t").values({ id: 5, v: "five" }).execute();
    expect(await ids()).toEqual([1, 5]);
  });

  it("a committing batch ends its transaction: committed, and nothing may run in it afterwards", async () => {
    await db.kysely.transaction().execute(async (trx) => {
      await executeBatch(trx, false, [trx.insertInto("t").values({ id: 6, v: "six" })], { commits: true });
    });
    expect(await ids()).toEqual([1, 6]);
    const late = await db.kysely
      .transaction()
      .execute(async (trx) => {
        await executeBatch(trx, false, [trx.insertInto("t").values({ id: 7, v: "seven" })], { commits: true });
        await trx.insertInto("t").values({ id: 8, v: "eight" }).execute();
      })
      .catch((e: unknown) => e);
    expect(String(late)).toMatch(/after its transaction's committing batch/);
    // what the committing batch wrote stays; the statement after it never ran
    expect(await ids()).toEqual([1, 6, 7]);
    await db.kysely.insertInto("t").values({ id: 9, v: "nine" }).execute();
    expect(await ids()).toEqual([1, 6, 7, 9]);
  });

  it("a failed check stops the committing batch before its writes and its COMMIT; the checks that hold let it commit", async () => {
    const attempt = (expectOne: "some" | "none", id: number) =>
      db.kysely
        .transaction()
        .execute((trx) =>
          executeBatch(
            trx,
            false,
            [
              expecting(trx.selectFrom("t").select("id").where("id", "=", 1), { rows: expectOne, reason: "row one" }),
              trx.insertInto("t").values({ id, v: "checked" }),
              expecting(sql`select id from t where id = ${id}`, { rows: "some", reason: "the insert" }),
            ],
            { commits: true },
          ),
        );
    const refused = await attempt("none", 13).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CheckFailed);
    expect((refused as CheckFailed).reason).toBe("row one");
    expect(await ids()).toEqual([1]);
    const answers = await attempt("some", 14);
    expect(answers.map((a) => a.rows.length)).toEqual([1, 0, 1]);
    expect(await ids()).toEqual([1, 14]);
    // outside a transaction, and a batch of one (checked on the main thread, as on PostgreSQL)
    await expect(
      executeBatch(db.kysely, false, [expecting(sql`select id from t where id = 99`, { rows: "some", reason: "99" })]),
    ).rejects.toThrow(CheckFailed);
    await expect(
      executeBatch(db.kysely, false, [
        db.kysely.insertInto("t").values({ id: 15, v: "autocommit" }),
        expecting(sql`select id from t where id = 99`, { rows: "some", reason: "99" }),
        db.kysely.insertInto("t").values({ id: 16, v: "never" }),
      ]),
    ).rejects.toThrow(CheckFailed);
    // outside a transaction each statement commits by itself: the one before the check stays, the one after never ran
    expect(await ids()).toEqual([1, 14, 15]);
    // the writer is clean for the next holder
    await db.kysely.insertInto("t").values({ id: 17, v: "seventeen" }).execute();
    expect(await ids()).toEqual([1, 14, 15, 17]);
  });

  it("reads alone outside a transaction go to a reader in one round trip, answered while the writer is held", async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let committed = false;
    const writing = db.kysely
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto("t").values({ id: 5, v: "five" }).execute();
        await gate;
      })
      .then(() => {
        committed = true;
      });
    try {
      // the writer's transaction holds it past the lock timeout (800 ms): on the writer, this batch would wait and fail
      await new Promise((r) => setTimeout(r, 50));
      const answers = await executeBatch(db.kysely, false, [
        db.kysely.selectFrom("t").select("id").orderBy("id"),
        sql`select count(*) as n from t`,
        db.kysely.selectFrom("t").select("v").where("id", "=", 1),
      ]);
      // answered while the writer's transaction is still open
      expect(committed).toBe(false);
      // each read sees what was committed: not the held transaction's insert
      expect(answers.map((a) => a.rows)).toEqual([[{ id: 1 }], [{ n: 1 }], [{ v: "one" }]]);
    } finally {
      release();
      await writing;
    }
    expect(await ids()).toEqual([1, 5]);
  });

  it("a BEGIN that cannot get the lock fails its transaction's every statement, none outside it; an empty one waits for nothing", async () => {
    const holder = await holdLock(join(dir, "t.sqlite"), 4_000);
    try {
      let second: unknown;
      const first = await db.kysely
        .transaction()
        .execute(async (trx) => {
          try {
            await trx.insertInto("t").values({ id: 10, v: "ten" }).execute();
          } catch (e) {
            // a caller that swallows the first failure and goes on: its next statement must not autocommit
            second = await trx
              .insertInto("t")
              .values({ id: 11, v: "eleven" })
              .execute()
              .catch((e2: unknown) => e2);
            throw e;
          }
        })
        .catch((e: unknown) => e);
      expect(isKitError(first) && first.status).toBe(503);
      // the BEGIN's own failure again, not a statement sent on its own
      expect(second).toBe(first);
      // a transaction that runs nothing sends nothing: no BEGIN waits for the other process's lock and fails
      await expect(db.kysely.transaction().execute(async () => "nothing")).resolves.toBe("nothing");
    } finally {
      holder.kill();
      await exited(holder);
    }
    expect(await ids()).toEqual([1]);
    await db.kysely.insertInto("t").values({ id: 12, v: "twelve" }).execute();
    expect(await ids()).toEqual([1, 12]);
  }, 20_000);
});
