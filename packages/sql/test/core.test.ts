// The core interfaces (JobStore, RateLimiter, QuotaCounter) and migrations on SQLite and PostgreSQL,
// including the cross-process guarantees, checked with real child processes sharing one database.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createWorker, type Job } from "@mountkit/core/jobs";
import { coreMigrations, migrate, sqlJobStore, sqlQuotaCounter, sqlRateLimiter } from "@mountkit/sql";
import { describe, expect, it } from "vitest";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

const run = promisify(execFile);
const repo = fileURLToPath(new URL("../../..", import.meta.url));

async function child(script: string, args: string[], env: Record<string, string>): Promise<any> {
  const { stdout } = await run(
    process.execPath,
    ["--conditions=mountkit-source", "--import", "tsx", `packages/sql/test/fixtures/${script}`, ...args],
    {
      cwd: repo,
      env: { ...process.env, DATABASE_URL: "", DATA_DIR: "", ...env },
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout.trim().split("\n").pop()!);
}

forEachDatabase("sql core", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations]);

  describe("migrations", () => {
    it("records each migration once and applies nothing the second time", async () => {
      expect(await migrate(use.db, [coreMigrations])).toEqual([]);
      const rows = await use.db.kysely.selectFrom("mountkit_migrations").selectAll().where("set_name", "=", "core").execute();
      expect(rows.map((r) => Number(r.version))).toEqual(coreMigrations.migrations.map((m) => m.version));
    });

    it("rejects versions that do not increase", async () => {
      await expect(
        migrate(use.db, [
          {
            name: "bad",
            migrations: [
              { version: 2, name: "a", up: async () => {} },
              { version: 1, name: "b", up: async () => {} },
            ],
          },
        ]),
      ).rejects.toThrow(/increasing/);
    });

    it("rolls a failing run back entirely", async () => {
      const set = {
        name: "failing",
        migrations: [
          {
            version: 1,
            name: "ok",
            up: async (k: any) => void (await k.schema.createTable("failing_t").addColumn("id", "integer").execute()),
          },
          { version: 2, name: "boom", up: async () => Promise.reject(new Error("boom")) },
        ],
      };
      await expect(migrate(use.db, [set])).rejects.toThrow("boom");
      const rows = await use.db.kysely.selectFrom("mountkit_migrations").selectAll().where("set_name", "=", "failing").execute();
      expect(rows).toEqual([]);
      await expect(use.db.kysely.selectFrom("failing_t").selectAll().execute()).rejects.toThrow();
    });

    it("is safe when two processes start at once", async () => {
      const results = await Promise.all([child("migrate-child.ts", [], use.target.env), child("migrate-child.ts", [], use.target.env)]);
      expect(results.map((r) => r.applied).sort()).toEqual([0, 2]);
      const rows = await use.db.kysely.selectFrom("slow_t").selectAll().execute();
      expect(rows).toHaveLength(1);
    });
  });

  describe("jobs", () => {
    it("enqueues idempotently by id and leases a job to one claimer", async () => {
      const store = sqlJobStore(use.db);
      expect(await store.enqueue({ id: "j1", queue: "q1", payload: { a: 1 }, now: 1000 })).toBe("j1");
      expect(await store.enqueue({ id: "j1", queue: "q1", payload: { a: 2 }, now: 1000 })).toBe("j1");
      const [first, second] = await Promise.all([
        store.claim({ queue: "q1", limit: 5, now: 1000, leaseMs: 100 }),
        store.claim({ queue: "q1", limit: 5, now: 1000, leaseMs: 100 }),
      ]);
      const all = [...first!, ...second!];
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({ id: "j1", queue: "q1", payload: { a: 1 }, attempts: 1, maxAttempts: 5, runAt: 1000 });
      expect(await store.counts("q1")).toEqual({ queued: 0, running: 1, done: 0, dead: 0 });
    });

    it("does not hand out jobs before runAt, and re-leases a running job whose lease expired", async () => {
      const store = sqlJobStore(use.db);
      await store.enqueue({ id: "late", queue: "q2", payload: null, runAt: 5000, now: 1000 });
      expect(await store.claim({ queue: "q2", limit: 1, now: 4999, leaseMs: 100 })).toEqual([]);
      const [a] = await store.claim({ queue: "q2", limit: 1, now: 5000, leaseMs: 100 });
      expect(a?.attempts).toBe(1);
      expect(await store.claim({ queue: "q2", limit: 1, now: 5099, leaseMs: 100 })).toEqual([]);
      const [b] = await store.claim({ queue: "q2", limit: 1, now: 5100, leaseMs: 100 });
      expect(b).toMatchObject({ id: "late", attempts: 2 });
      await store.complete({ id: "late", now: 5101 });
      expect(await store.claim({ queue: "q2", limit: 1, now: 999_999, leaseMs: 100 })).toEqual([]);
      expect(await store.counts("q2")).toEqual({ queued: 0, running: 0, done: 1, dead: 0 });
    });

    it("retries a failed job at retryAt and buries it when retryAt is null", async () => {
      const store = sqlJobStore(use.db);
      await store.enqueue({ id: "f", queue: "q3", payload: 1, maxAttempts: 2, now: 0 });
      await store.claim({ queue: "q3", limit: 1, now: 0, leaseMs: 10_000 });
      await store.fail({ id: "f", error: "x", retryAt: 500, now: 1 });
      expect(await store.counts("q3")).toEqual({ queued: 1, running: 0, done: 0, dead: 0 });
      expect(await store.claim({ queue: "q3", limit: 1, now: 499, leaseMs: 10_000 })).toEqual([]);
      const [again] = await store.claim({ queue: "q3", limit: 1, now: 500, leaseMs: 10_000 });
      expect(again?.attempts).toBe(2);
      await store.fail({ id: "f", error: "y", retryAt: null, now: 501 });
      expect(await store.counts("q3")).toEqual({ queued: 0, running: 0, done: 0, dead: 1 });
      expect(await store.claim({ queue: "q3", limit: 1, now: 1e12, leaseMs: 10 })).toEqual([]);
    });

    it("never hands one job to two of many concurrent claimers, across connections", async () => {
      const other = await use.target.open();
      try {
        const stores = [sqlJobStore(use.db), sqlJobStore(other)];
        for (let i = 0; i < 60; i++) await stores[0]!.enqueue({ id: `c${String(i).padStart(3, "0")}`, queue: "q4", payload: i, now: 0 });
        const seen: string[] = [];
        await Promise.all(
          Array.from({ length: 6 }, async (_, w) => {
            for (;;) {
              const got = await stores[w % 2]!.claim({ queue: "q4", limit: 3, now: 10, leaseMs: 60_000 });
              if (!got.length) return;
              seen.push(...got.map((j) => j.id));
            }
          }),
        );
        expect(seen).toHaveLength(60);
        expect(new Set(seen).size).toBe(60);
      } finally {
        await other.close();
      }
    });

    it("re-leases a running job early when its holder stopped heartbeating, never while it is alive", async () => {
      const other = await use.target.open();
      try {
        const holder = sqlJobStore(use.db, { staleAfterMs: 5_000 });
        const taker = sqlJobStore(other, { staleAfterMs: 5_000 });
        await holder.enqueue({ id: "hb", queue: "q6", payload: null, now: 0 });
        const [held] = await holder.claim({ queue: "q6", limit: 1, now: 0, leaseMs: 3_600_000 });
        expect(held?.id).toBe("hb");
        // alive: its fresh heartbeat protects the job for the whole lease
        expect(await taker.claim({ queue: "q6", limit: 1, now: 1, leaseMs: 60_000 })).toEqual([]);
        // the holder's process dies: its last heartbeat ages past staleAfterMs
        const row = await use.db.kysely.selectFrom("jobs").select("locked_by").where("id", "=", "hb").executeTakeFirstOrThrow();
        await use.db.kysely
          .updateTable("job_workers")
          .set({ seen_at: Date.now() - 10_000 })
          .where("owner", "=", row.locked_by)
          .execute();
        const [taken] = await taker.claim({ queue: "q6", limit: 1, now: 2, leaseMs: 60_000 });
        expect(taken).toMatchObject({ id: "hb", attempts: 2 });
      } finally {
        await other.close();
      }
    });

    it("runs under createWorker: two workers share a queue and each job runs once", async () => {
      const other = await use.target.open();
      try {
        const a = sqlJobStore(use.db);
        const b = sqlJobStore(other);
        for (let i = 0; i < 30; i++) await a.enqueue({ id: `w${i}`, queue: "q5", payload: i, now: Date.now() });
        const ran: number[] = [];
        const handler = async (job: Job<number>) => {
          ran.push(job.payload);
          await new Promise((r) => setTimeout(r, 2));
        };
        const workers = [
          createWorker({ store: a, queue: "q5", handler, pollMs: 20 }),
          createWorker({ store: b, queue: "q5", handler, pollMs: 20 }),
        ];
        for (const w of workers) w.start();
        const deadline = Date.now() + 20_000;
        while ((await a.counts("q5")).done < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
        await Promise.all(workers.map((w) => w.stop()));
        expect(ran.sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i));
        expect(await a.counts("q5")).toEqual({ queued: 0, running: 0, done: 30, dead: 0 });
      } finally {
        await other.close();
      }
    });
  });

  describe("quota", () => {
    it("counts, stops at the limit, refunds, and keeps keys and periods apart", async () => {
      const q = sqlQuotaCounter(use.db);
      expect(await q.consume("k", "d1", 2)).toEqual({ allowed: true, used: 1 });
      expect(await q.consume("k", "d1", 2)).toEqual({ allowed: true, used: 2 });
      expect(await q.consume("k", "d1", 2)).toEqual({ allowed: false, used: 2 });
      expect(await q.consume("k", "d2", 2)).toEqual({ allowed: true, used: 1 });
      expect(await q.consume("other", "d1", 2)).toEqual({ allowed: true, used: 1 });
      await q.refund("k", "d1");
      expect(await q.used("k", "d1")).toBe(1);
      await q.refund("k", "d1");
      await q.refund("k", "d1");
      expect(await q.used("k", "d1")).toBe(0);
      expect(await q.used("never", "d1")).toBe(0);
      expect(await q.consume("z", "d1", 0)).toEqual({ allowed: false, used: 0 });
    });

    it("never exceeds the limit under concurrent calls from two processes", async () => {
      const results = await Promise.all([
        child("limits-child.ts", ["quota", "shared", "40", "25", "0"], use.target.env),
        child("limits-child.ts", ["quota", "shared", "40", "25", "0"], use.target.env),
      ]);
      expect(results[0].allowed + results[1].allowed).toBe(25);
      expect(await sqlQuotaCounter(use.db).used("shared", "2030-01-01")).toBe(25);
    });
  });

  describe("rate limiter", () => {
    it("is an exact sliding log: no window admits more than the limit, even across a second boundary", async () => {
      const rl = sqlRateLimiter(use.db);
      const opts = (now: number) => ({ limit: 3, windowMs: 1000, now });
      for (const t of [900, 950, 990]) expect((await rl.hit("p", opts(t))).allowed).toBe(true);
      const denied = await rl.hit("p", opts(1010));
      expect(denied).toEqual({ allowed: false, limit: 3, remaining: 0, retryAfterMs: 890 });
      expect((await rl.hit("p", opts(1899))).allowed).toBe(false);
      const ok = await rl.hit("p", opts(1900));
      expect(ok).toEqual({ allowed: true, limit: 3, remaining: 0, retryAfterMs: 0 });
      expect((await rl.hit("other", opts(1900))).remaining).toBe(2);
    });

    it("peek answers what a hit would, from another connection's writes, without recording", async () => {
      const rl = sqlRateLimiter(use.db);
      const other = sqlRateLimiter(use.db);
      const opts = (now: number) => ({ limit: 2, windowMs: 1000, now });
      expect(await rl.peek("peeked", opts(0))).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfterMs: 0 });
      await other.hit("peeked", opts(0));
      await other.hit("peeked", opts(100));
      expect(await rl.peek("peeked", opts(200))).toEqual({ allowed: false, limit: 2, remaining: 0, retryAfterMs: 800 });
      expect(await rl.peek("peeked", opts(200))).toEqual({ allowed: false, limit: 2, remaining: 0, retryAfterMs: 800 });
      expect((await rl.peek("peeked", opts(1000))).allowed).toBe(true);
      expect(await rl.peek("never-hit", opts(0))).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfterMs: 0 });
    });

    it("admits exactly the limit within one window from two processes at once", async () => {
      const now = 1_000_000;
      const results = await Promise.all([
        child("limits-child.ts", ["rate", "shared", "30", "20", String(now)], use.target.env),
        child("limits-child.ts", ["rate", "shared", "30", "20", String(now)], use.target.env),
      ]);
      expect(results[0].allowed + results[1].allowed).toBe(20);
    });
  });
});
