// Fastify 5 host from the packed tarballs: the three services on SQLite under the plugin prefix /kit.
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { mountkitPlugin } from "@mountkit/fastify";
import { createMemoryService } from "@mountkit/memory";
import { openStorage } from "@mountkit/sql";
import { createSupportService } from "@mountkit/support";
import Fastify from "fastify";
import { probeAllServices, requireEach, timedShutdown } from "./probe.js";

const storage = await openStorage({ dataDir: process.env.DATA_DIR ?? "./data" });
const services = [
  createEntriesService({ auth: jwtVerifier({ secret: "packaging-test-secret-of-32-bytes!" }), store: storage.entries }),
  createMemoryService({ store: storage.memory }),
  createSupportService({ products: ["demo"], store: storage.support, bus: storage.bus, limiter: storage.limiter }),
];
const app = Fastify();
await app.register(mountkitPlugin, { services, prefix: "/kit" });
app.addHook("onClose", async () => {
  for (const s of services) await s.dispose();
  await storage.close();
});
const url = await app.listen({ port: 0, host: "127.0.0.1" });

const reader = await probeAllServices(`${url}/kit`);
requireEach(JSON.parse(process.env.MOUNTKIT_PACKAGES ?? "[]"));
const ms = await timedShutdown(reader, () => app.close());
console.log(JSON.stringify({ host: "fastify", shutdownMs: Math.round(ms) }));
