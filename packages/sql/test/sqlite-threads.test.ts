// SQLite through connection threads: the host's event loop never waits on the engine. Reads answer while another
// process holds the write lock, a write past its lock deadline answers 503 with Retry-After, the main thread's loop
// stays free throughout, and an idle database never keeps the process alive.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { isKitError } from "@mountkit/core";
import { openDatabase, type SqlDatabase } from "@mountkit/sql";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exited, holdLock } from "./fixtures/lock-holder.js";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const repo = fileURLToPath(new URL("../../..", import.meta.url));

describe("SQLite connection threads", () => {
  let dir: string;
  let db: SqlDatabase;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "mountkit-threads-"));
    db = await openDatabase({ filename: join(dir, "t.sqlite"), busyTimeoutMs: 1_500 });
    await sql`create table t (id integer primary key, v text)`.execute(db.kysely);
    await db.kysely.insertInto("t").values({ id: 1, v: "one" }).execute();
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads answer at once while another process holds the write lock, and the loop never waits", async () => {
    const holder = await holdLock(join(dir, "t.sqlite"), 8_000);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    try {
      const t0 = Date.now();
      for (let i = 0; i < 20; i++) expect(await db.kysely.selectFrom("t").selectAll().execute()).toEqual([{ id: 1, v: "one" }]);
      expect(Date.now() - t0).toBeLessThan(1_000);
      // a write waits in the writer thread, then gives up with a 503 that says when to come back
      const w0 = Date.now();
      const err = await db.kysely
        .insertInto("t")
        .values({ id: 2, v: "two" })
        .execute()
        .catch((e: unknown) => e);
      expect(isKitError(err) && err.status).toBe(503);
      expect(isKitError(err) && err.headers?.["retry-after"]).toBe("1");
      expect(Date.now() - w0).toBeGreaterThanOrEqual(1_000);
      // a transaction's begin gives up the same way
      const trx = await db.kysely
        .transaction()
        .execute((t) => t.insertInto("t").values({ id: 3, v: "three" }).execute())
        .catch((e: unknown) => e);
      expect(isKitError(trx) && trx.status, String(trx)).toBe(503);
    } finally {
      delay.disable();
      await exited(holder);
    }
    // the busy waits (1.5 s each) happened in the thread: the event loop stayed free
    expect(delay.max / 1e6).toBeLessThan(250);
    // after the hold, writes go through; nothing half-written stayed behind
    await db.kysely.insertInto("t").values({ id: 2, v: "two" }).execute();
    expect((await db.kysely.selectFrom("t").select("id").orderBy("id").execute()).map((r) => r.id)).toEqual([1, 2]);
  });

  it("a write queued behind this process's own transaction gives up at its deadline", async () => {
    let release!: () => void;
    const holding = db.kysely.transaction().execute(async (t) => {
      await t.insertInto("t").values({ id: 10, v: "held" }).execute();
      await new Promise<void>((r) => (release = r));
    });
    await new Promise((r) => setTimeout(r, 50));
    const err = await db.kysely
      .insertInto("t")
      .values({ id: 11, v: "late" })
      .execute()
      .catch((e: unknown) => e);
    expect(isKitError(err) && err.status).toBe(503);
    // a read meanwhile sees the last committed state, not the open transaction's row
    expect((await db.kysely.selectFrom("t").select("id").execute()).map((r) => r.id)).toEqual([1]);
    release();
    await holding;
    expect((await db.kysely.selectFrom("t").select("id").orderBy("id").execute()).map((r) => r.id)).toEqual([1, 10]);
  });

  it("keeps the driver's error codes, sends raw writes to the writer and blobs both ways", async () => {
    const dup = await db.kysely
      .insertInto("t")
      .values({ id: 1, v: "again" })
      .execute()
      .catch((e: unknown) => e);
    expect((dup as { code?: string }).code).toBe("SQLITE_CONSTRAINT_PRIMARYKEY");
    await sql`with v(id, v) as (values (5, 'five')) insert into t select id, v from v`.execute(db.kysely);
    const r = await sql<{ n: number }>`select count(*) as n from t`.execute(db.kysely);
    expect(r.rows[0]!.n).toBe(2);
    const blob = new Uint8Array([0, 1, 2, 255]);
    await sql`create table b (x blob)`.execute(db.kysely);
    await sql`insert into b values (${blob})`.execute(db.kysely);
    const back = await sql<{ x: Uint8Array }>`select x from b`.execute(db.kysely);
    expect([...back.rows[0]!.x]).toEqual([0, 1, 2, 255]);
  });

  it("an open database with nothing to do never keeps the process alive", async () => {
    const t0 = Date.now();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--conditions=mountkit-source", "--import", "tsx", join(fixtures, "idle-open.ts"), join(dir, "idle.sqlite")],
      { cwd: repo, timeout: 30_000 },
    );
    expect(stdout).toContain("queried");
    expect(Date.now() - t0).toBeLessThan(30_000);
  });
});
