// Webhook delivery benchmark (issue #28, `npm run bench -- webhooks [--events 300] [--slow-ms 1000]`): ten receivers
// on local sockets, one of them slow, every event fanned out to all ten; deliveries per second to the nine fast ones,
// how far the slow one got meanwhile, and the worst event-loop delay of the sending process. In-memory stores and a
// SQLite file (the same database as the entries), built from sources.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { systemClock } from "@mountkit/core";
import type { JobStore } from "@mountkit/core/jobs";
import { inMemoryJobStore } from "@mountkit/core/jobs";
import { eventJob, inMemoryWebhookStore, newSecret, startWebhooks, type WebhookStore, webhookEvent } from "@mountkit/core/webhooks";
import { allMigrations, openDatabase, sqlJobStore, sqlWebhookStore } from "@mountkit/sql";
import { arg, table } from "./lib.js";

async function receiver(delayMs: number) {
  let taken = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = () => {
        taken++;
        res.writeHead(204).end();
      };
      if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    taken: () => taken,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function once(label: string, store: WebhookStore, jobs: JobStore, events: number, slowMs: number) {
  const receivers = await Promise.all(Array.from({ length: 10 }, (_, i) => receiver(i === 0 ? slowMs : 0)));
  for (const [i, r] of receivers.entries())
    await store.createSubscription({
      id: `whs_b${i}`,
      scope: "bench",
      url: r.url,
      events: ["*"],
      secret: newSecret(),
      description: "",
      enabled: true,
      createdAt: 0,
      updatedAt: 0,
    });
  const hooks = startWebhooks({ service: "bench", store, jobs, clock: systemClock, options: { allowPrivate: true, pollMs: 50 } });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const t0 = performance.now();
  for (let i = 0; i < events; i++) {
    await jobs.enqueue(
      eventJob("bench", webhookEvent({ type: "thing.created", scope: "bench", subject: `s${i % 50}`, data: { i }, now: Date.now() })),
    );
    hooks.wake();
  }
  const fast = receivers.slice(1);
  while (fast.some((r) => r.taken() < events)) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - t0) / 1000;
  loop.disable();
  const slowTaken = receivers[0]!.taken();
  await hooks.stop();
  await Promise.all(receivers.map((r) => r.close()));
  return {
    store: label,
    events,
    "fast deliveries": fast.length * events,
    seconds: seconds.toFixed(1),
    "deliveries/s (9 fast)": Math.round((fast.length * events) / seconds),
    [`slow (${slowMs} ms) took`]: slowTaken,
    "max loop delay ms": Math.round(loop.max / 1e6),
  };
}

export async function run(args: string[]): Promise<void> {
  const events = arg(args, "events", 300);
  const slowMs = arg(args, "slow-ms", 1000);
  const rows = [await once("memory", inMemoryWebhookStore(), inMemoryJobStore(), events, slowMs)];
  const dir = mkdtempSync(join(tmpdir(), "mk-bench-webhooks-"));
  const db = await openDatabase({ dataDir: dir, migrations: [...allMigrations] });
  try {
    rows.push(await once("SQLite", sqlWebhookStore(db), sqlJobStore(db), events, slowMs));
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(table(rows));
}
