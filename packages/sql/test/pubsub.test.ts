// pgPubSub: delivery across connections (standing in for processes), exactly once locally, topic
// isolation, the payload cap, and recovery after the listening connection is killed.
import { openDatabase, pgPubSub, type SqlDatabase } from "@mountkit/sql";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "../../../test/sql-targets.js";

async function until(check: () => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

forEachDatabase("pgPubSub", () => {
  let target: TestDatabase;
  let a: SqlDatabase;
  let b: SqlDatabase;
  beforeAll(async () => {
    target = await createTestDatabase("postgres");
    a = await openDatabase({ url: target.env.DATABASE_URL });
    b = await openDatabase({ url: target.env.DATABASE_URL });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await target?.drop();
  });

  it("delivers a message published on one pool to subscribers on another, and once to local ones", async () => {
    const busA = pgPubSub(a.pool!);
    const busB = pgPubSub(b.pool!);
    try {
      await Promise.all([busA.ready(), busB.ready()]);
      const gotA: unknown[] = [];
      const gotB: unknown[] = [];
      const gotOther: unknown[] = [];
      busA.subscribe("conv:1", (m) => gotA.push(m));
      busB.subscribe("conv:1", (m) => gotB.push(m));
      busB.subscribe("conv:2", (m) => gotOther.push(m));
      await busA.publish("conv:1", { seq: 1 });
      await busA.publish("conv:1", { seq: 2 });
      await until(() => gotB.length === 2);
      await new Promise((r) => setTimeout(r, 100));
      expect(gotB).toEqual([{ seq: 1 }, { seq: 2 }]);
      expect(gotA).toEqual([{ seq: 1 }, { seq: 2 }]);
      expect(gotOther).toEqual([]);
    } finally {
      await busA.close();
      await busB.close();
    }
  });

  it("stops delivering after unsubscribe and refuses oversized messages", async () => {
    const busA = pgPubSub(a.pool!);
    const busB = pgPubSub(b.pool!);
    try {
      await Promise.all([busA.ready(), busB.ready()]);
      const got: unknown[] = [];
      const off = busB.subscribe("t", (m) => got.push(m));
      await busA.publish("t", 1);
      await until(() => got.length === 1);
      off();
      await busA.publish("t", 2);
      await new Promise((r) => setTimeout(r, 150));
      expect(got).toEqual([1]);
      await expect(busA.publish("t", "x".repeat(9000))).rejects.toThrow(/ids/);
    } finally {
      await busA.close();
      await busB.close();
    }
  });

  it("reconnects when its listening connection is killed and tells the host to catch up", async () => {
    let reconnects = 0;
    const busA = pgPubSub(a.pool!);
    const busB = pgPubSub(b.pool!, { reconnectMs: 20, onReconnect: () => reconnects++ });
    try {
      await Promise.all([busA.ready(), busB.ready()]);
      const got: unknown[] = [];
      busB.subscribe("r", (m) => got.push(m));
      await a.pool!.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where query ilike 'listen%' and datname = current_database() and pid <> pg_backend_pid()",
      );
      await until(() => reconnects === 1);
      // the other bus's own listener was killed too; wait for both to be back before publishing
      await new Promise((r) => setTimeout(r, 200));
      await busA.publish("r", "after");
      await until(() => got.includes("after"));
    } finally {
      await busA.close();
      await busB.close();
    }
  });
}, ["postgres"]);
