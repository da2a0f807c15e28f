// Hono on Node (@hono/node-server) host from the packed tarballs: the three services on SQLite under /kit.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { closeStreamsOnClose, toFetchHandler } from "@mountkit/fetch";
import { createMemoryService } from "@mountkit/memory";
import { openStorage } from "@mountkit/sql";
import { createSupportService } from "@mountkit/support";
import { Hono } from "hono";
import { JWT_SECRET, probeAllServices, requireEach, timedShutdown } from "./probe.js";

const storage = await openStorage({ dataDir: process.env.DATA_DIR ?? "./data" });
// no `effect` installed here: entries works without its optional peer
const memory = createMemoryService({ store: storage.memory });
const { key } = await memory.keys.create({ brainId: "host-brain" });
const services = [
  createEntriesService({ auth: jwtVerifier({ secret: JWT_SECRET }), store: storage.entries }),
  memory,
  createSupportService({ products: ["demo"], store: storage.support, bus: storage.bus, limiter: storage.limiter }),
];
// Hono's mount cuts the prefix from the URL it hands over: `mountPath` tells the kit, so links carry /kit
const kit = toFetchHandler(services, { mountPath: "/kit" });
const app = new Hono();
app.mount("/kit", kit);
const server = await new Promise<Server>((resolve) => {
  const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server));
});
closeStreamsOnClose(server, kit);
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/kit`;

const reader = await probeAllServices(base, key);
requireEach(JSON.parse(process.env.MOUNTKIT_PACKAGES ?? "[]"));
const ms = await timedShutdown(
  reader,
  () =>
    new Promise<void>((resolve, reject) =>
      server.close(async (err) => {
        for (const s of services) await s.dispose();
        await storage.close();
        if (err) reject(err);
        else resolve();
      }),
    ),
);
console.log(JSON.stringify({ host: "hono", shutdownMs: Math.round(ms) }));
