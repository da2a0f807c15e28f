// kill -9 the example server while entries are written and their webhook receiver is down, restart it on the same
// database, bring the receiver up, and check: every entry the database holds had its entry.created delivered (the
// event's job was committed with the entry), each with a signature the library verifies, and none for an entry that
// is not there. On SQLite and on PostgreSQL.
import { signHs256 } from "@mountkit/entries";
import { afterAll, beforeAll, expect, it } from "vitest";
import { japan } from "../packages/entries/test/fixtures/countries.js";
import { call } from "./harness.js";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "./sql-targets.js";
import { type ServerProcess, startServer } from "./storage/server-process.js";
import { type Receiver, startReceiver } from "./webhook-receiver.js";

const SECRET = "webhooks-crash-secret-0123456789abcdef01";

forEachDatabase("webhooks survive kill -9 of the sender", (dialect) => {
  let target: TestDatabase;
  let server: ServerProcess | undefined;
  let receiver: Receiver;
  const env = () => ({
    ...target.env,
    AUTH_HS256_SECRET: SECRET,
    WEBHOOKS_ALLOW_PRIVATE: "1",
    WEBHOOKS_RETRY_SCHEDULE_MS: "200,400,800,800,800,800,800,800,800,800",
  });

  beforeAll(async () => {
    target = await createTestDatabase(dialect);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await target?.drop();
  }, 60_000);

  it("delivers entry.created for every entry the database kept, after a crash with the receiver down", async () => {
    const headers = { authorization: `Bearer ${await signHs256(SECRET, { sub: "crash-owner" })}` };
    server = await startServer(env());
    const first = server;
    const sub = await call(`${first.url}/api/v1/webhooks`, { headers, body: { url: receiver.url, events: ["entry.created"] } });
    expect(sub.status, sub.text).toBe(201);
    receiver.down = true;

    const acknowledged: string[] = [];
    let stop = false;
    const lane = async (k: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const r = await call(`${first.url}/api/v1/types/countries/data`, {
            headers,
            body: { name: `Crash ${k}.${i}`, description: "d", customData: japan },
          });
          if (r.status === 201) acknowledged.push(r.body.id);
          else if (r.status < 500) throw new Error(`unexpected ${r.status}: ${r.text}`);
        } catch (e) {
          if (!stop) throw e;
        }
      }
    };
    const load = Promise.all([lane(0), lane(1), lane(2)]);
    const deadline = Date.now() + 45_000;
    while (acknowledged.length < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    stop = true;
    await first.crash();
    await load;
    expect(acknowledged.length).toBeGreaterThanOrEqual(30);
    // nothing could get through while the receiver was down
    expect(receiver.got).toHaveLength(0);

    server = await startServer(env());
    receiver.down = false;
    // what the database holds: the acknowledged entries, and perhaps some whose answer the crash cut off
    const kept: string[] = [];
    for (let cursor: string | null = null; ; ) {
      const page: { status: number; body: { items: Array<{ id: string; ownerId: string }>; next: string | null } } = await call(
        `${server.url}/api/v1/types/countries/data?limit=100${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      kept.push(...page.body.items.filter((e) => e.ownerId === "crash-owner").map((e) => e.id));
      cursor = page.body.next;
      if (!cursor) break;
    }
    for (const id of acknowledged) expect(kept).toContain(id);
    const got = await receiver.waitFor(kept.length, 60_000);
    const delivered = new Set(got.map((g) => g.payload.data.id as string));
    expect([...delivered].sort()).toEqual([...kept].sort());
    for (const g of got) expect(receiver.verify(g, sub.body.secret)).toEqual(g.payload);
  }, 180_000);
});
