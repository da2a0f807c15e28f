// Express 5 host from the packed tarballs: the three services on SQLite under /kit.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { mountkit } from "@mountkit/express";
import { createMemoryService } from "@mountkit/memory";
import { openStorage } from "@mountkit/sql";
import { createSupportService } from "@mountkit/support";
import express from "express";
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
const app = express();
app.use(express.json());
const kit = mountkit(services);
app.use("/kit", kit);
const server = kit.attach(createServer(app));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
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
console.log(JSON.stringify({ host: "express", shutdownMs: Math.round(ms) }));
