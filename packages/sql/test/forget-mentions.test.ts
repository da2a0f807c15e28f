// What an erasure deletes from the queue and the webhook log (JobStore.forgetMentions, WebhookStore.forgetMentions):
// the jobs of one queue and group, and the deliveries of one scope, whose payload names an erased id, in any state;
// nothing of another group or scope, nothing that names none of them. On the in-process stores, SQLite and PostgreSQL.
import { inMemoryJobStore, type JobStore } from "@mountkit/core/jobs";
import { type Delivery, inMemoryWebhookStore, type WebhookStore } from "@mountkit/core/webhooks";
import { coreMigrations, sqlJobStore, sqlWebhookStore } from "@mountkit/sql";
import { describe, expect, it } from "vitest";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

let n = 0;
const uid = (p: string) => `${p}_${Date.now().toString(36)}_${++n}`;

const delivery = (scope: string, subject: string, text: string): Delivery => {
  const id = uid("dlv");
  return {
    id,
    subscriptionId: `sub_${scope}`,
    scope,
    eventId: uid("evt"),
    eventType: "episode.done",
    subject,
    payload: JSON.stringify({ type: "episode.done", data: { id: subject, content: text } }),
    occurredAt: 1000,
    state: "delivered",
    attempts: [],
    attemptCount: 1,
    createdAt: 1000,
    deliveredAt: 1001,
    nextAttemptAt: null,
  };
};

function forgetTests(stores: () => { jobs: JobStore; hooks: WebhookStore }) {
  it("deletes the group's jobs naming an id, queued, running or done; keeps the rest", async () => {
    const { jobs } = stores();
    const [queue, group, other] = [uid("q"), uid("g"), uid("g")];
    // ids holding LIKE's wildcards: matched as text, never as patterns
    const [erased, kept] = ["ep_a%b_1", "ep_axb51"];
    const job = (id: string, groupKey: string, subject: string) =>
      jobs.enqueue({ id, queue, groupKey, payload: { data: { id: subject, content: `about ${subject}` } }, now: 1000 });
    await job("j-queued", group, erased);
    await job("j-done", group, erased);
    await job("j-kept", group, kept);
    await job("j-other-group", other, erased);
    await jobs.enqueue({ id: "j-other-queue", queue: uid("q"), groupKey: group, payload: { data: { id: erased } }, now: 1000 });
    // one claim per group: the oldest of the group, then done
    const [claimed] = await jobs.claim({ queue, limit: 1, now: 1000, leaseMs: 60_000 });
    await jobs.complete({ id: claimed!.id, now: 1001 });
    expect(await jobs.forgetMentions!({ queue, groupKey: group, ids: [erased] })).toBe(2);
    expect(await jobs.forgetMentions!({ queue, groupKey: group, ids: [erased] })).toBe(0);
    expect(await jobs.forgetMentions!({ queue, groupKey: group, ids: [] })).toBe(0);
    const left = await jobs.claim({ queue, limit: 10, now: 2000, leaseMs: 60_000 });
    expect(left.map((j) => j.id).sort()).toEqual(["j-kept", "j-other-group"]);
    // without ids: every job of the group
    expect(await jobs.forgetMentions!({ queue, groupKey: other })).toBe(1);
    expect(await jobs.counts(queue)).toMatchObject({ running: 1 });
  });

  it("deletes the scope's deliveries naming an id, in chunks past the statement's limit; keeps the rest", async () => {
    const { hooks } = stores();
    const [scope, otherScope] = [uid("memory:brain"), uid("memory:brain")];
    const many = Array.from({ length: 450 }, (_, i) => `edge_${i}_x`);
    const gone = [
      delivery(scope, "ep_1", "Quorvindle lives in Lisbon"),
      delivery(scope, "edge_449_x", "a fact"),
      delivery(scope, "ep_3", "cites edge_7_x"),
    ];
    const kept = [delivery(scope, "ep_2", "Marta met a client"), delivery(otherScope, "ep_1", "Quorvindle again")];
    for (const d of [...gone, ...kept]) expect(await hooks.addDelivery(d)).toBe(true);
    expect(await hooks.forgetMentions!(scope, ["ep_1", ...many])).toBe(3);
    for (const d of gone) expect(await hooks.getDelivery(d.id)).toBeNull();
    for (const d of kept) expect(await hooks.getDelivery(d.id)).toMatchObject({ id: d.id, payload: d.payload });
    expect(await hooks.forgetMentions!(scope, [])).toBe(0);
  });
}

describe("forgetMentions on the in-process stores", () => {
  forgetTests(() => ({ jobs: inMemoryJobStore(), hooks: inMemoryWebhookStore() }));
});

forEachDatabase("forgetMentions", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations]);
  forgetTests(() => ({ jobs: sqlJobStore(use.db), hooks: sqlWebhookStore(use.db) }));
});
