// LIMIT and OFFSET are written into SQLite statements as numbers (src/limits.ts): a bound LIMIT makes SQLite prepare
// the statement again on every run. The query builder's `.limit()`/`.offset()` and raw templates' `sqlCount()` both
// write them; a value that is not a non-negative safe integer is still refused with a 400, never written.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isKitError } from "@mountkit/core";
import { openDatabase, type SqlDatabase } from "@mountkit/sql";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlCount } from "../src/limits.js";

describe("literal LIMIT and OFFSET on SQLite", () => {
  let dir: string;
  let db: SqlDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mountkit-limits-"));
    db = await openDatabase({ filename: join(dir, "t.sqlite") });
    await sql`create table t (id integer primary key, v text)`.execute(db.kysely);
    await db.kysely
      .insertInto("t")
      .values([1, 2, 3, 4, 5].map((id) => ({ id, v: `v${id}` })))
      .execute();
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the query builder writes them as numbers, with only the other values bound", async () => {
    const q = db.kysely.selectFrom("t").select("id").where("id", ">", 1).orderBy("id").limit(2).offset(1);
    const compiled = q.compile();
    expect(compiled.sql).toMatch(/limit 2 offset 1$/);
    expect(compiled.parameters).toEqual([1]);
    expect((await q.execute()).map((r) => r.id)).toEqual([3, 4]);
  });

  it("a subquery's limit is written too", async () => {
    const q = db.kysely
      .selectFrom((eb) => eb.selectFrom("t").select("id").orderBy("id", "desc").limit(3).as("x"))
      .select("x.id")
      .orderBy("x.id");
    expect(q.compile().sql).toContain("limit 3)");
    expect((await q.execute()).map((r) => r.id)).toEqual([3, 4, 5]);
  });

  it("a count that is not a safe integer is refused with a 400, never written", async () => {
    for (const n of [1.5, Number.NaN, 2 ** 60]) {
      const err = await db.kysely.selectFrom("t").select("id").limit(n).execute().catch((e: unknown) => e);
      expect(isKitError(err) && err.status === 400, `limit(${n})`).toBe(true);
    }
    // a negative one is bound as before (SQLite reads it as no limit), and refused by sqlCount
    expect(db.kysely.selectFrom("t").select("id").limit(-1).compile().parameters).toEqual([-1]);
    for (const n of [1.5, -1, Number.NaN]) {
      const raw = (() => {
        try {
          return sqlCount(n);
        } catch (e) {
          return e;
        }
      })();
      expect(isKitError(raw) && raw.status === 400, `sqlCount(${n})`).toBe(true);
    }
  });

  it("sqlCount writes a raw template's count as a number", async () => {
    const q = sql<{ id: number }>`select id from t order by id limit ${sqlCount(2)} offset ${sqlCount(3)}`;
    const compiled = q.compile(db.kysely);
    expect(compiled.sql).toBe("select id from t order by id limit 2 offset 3");
    expect(compiled.parameters).toEqual([]);
    expect((await q.execute(db.kysely)).rows.map((r) => r.id)).toEqual([4, 5]);
  });
});
