// Fastify 5 host from the packed tarballs: the three services on SQLite under the plugin prefix /kit, with
// `effect` installed and an Effect Schema type registered (validation and its OpenAPI document), typed api.
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { mountkitPlugin } from "@mountkit/fastify";
import { createMemoryService } from "@mountkit/memory";
import { openStorage } from "@mountkit/sql";
import { createSupportService } from "@mountkit/support";
import { Schema } from "effect";
import Fastify from "fastify";
import { JWT_SECRET, probeAllServices, probeEntries, requireEach, timedShutdown } from "./probe.js";

const storage = await openStorage({ dataDir: process.env.DATA_DIR ?? "./data" });
const Planet = Schema.Struct({ name: Schema.NonEmptyString, moons: Schema.Array(Schema.String) });
const entries = createEntriesService({
  auth: jwtVerifier({ secret: JWT_SECRET }),
  store: storage.entries,
  types: [{ id: "planets", schema: Planet }],
});
const memory = createMemoryService({ store: storage.memory });
const { key } = await memory.keys.create({ brainId: "host-brain" });
const services = [
  entries,
  memory,
  createSupportService({ products: ["demo"], store: storage.support, bus: storage.bus, limiter: storage.limiter }),
];
const app = Fastify();
await app.register(mountkitPlugin, { services, prefix: "/kit" });
app.addHook("onClose", async () => {
  for (const s of services) await s.dispose();
  await storage.close();
});
const url = await app.listen({ port: 0, host: "127.0.0.1" });

// the packaged types: a registered id with its Effect-typed customData compiles, an unknown id does not
const mars = await entries.api.submit({
  typeId: "planets",
  ownerId: "host",
  entry: { name: "Mars", description: "Red", customData: { name: "Mars", moons: ["Phobos"] } },
});
const moons: readonly string[] = mars.customData.moons;
// @ts-expect-error "boooks" is not a registered type
await entries.api.get({ typeId: "boooks", id: mars.id }).catch(() => undefined);
if (moons.length !== 1) throw new Error("typed api returned the wrong entry");
const doc = JSON.stringify(entries.api.typeDocument("planets"));
if (!doc.includes('"moons"')) throw new Error(`no Effect-derived schema in the planets document: ${doc.slice(0, 300)}`);

await probeEntries(`${url}/kit`, "planets", { name: "Venus", moons: [] }, { name: "", moons: [1] }, [
  "customData.moons[0]",
  "customData.name",
]);
const reader = await probeAllServices(`${url}/kit`, key);
requireEach(JSON.parse(process.env.MOUNTKIT_PACKAGES ?? "[]"));
const ms = await timedShutdown(reader, () => app.close());
console.log(JSON.stringify({ host: "fastify", shutdownMs: Math.round(ms) }));
