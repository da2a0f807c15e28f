// Memory host installed by Yarn with Plug'n'Play: no node_modules, every module resolves through Yarn's runtime,
// which `yarn node` puts in NODE_OPTIONS (`--require .pnp.cjs`, `--experimental-loader .pnp.loader.mjs`). The kit's
// SQLite threads and extraction threads load their modules from Yarn's zip cache, so they need that runtime too.
// Plain JavaScript: the host is run as it is, with no type check of its own.

import assert from "node:assert/strict";
import { createMemoryService } from "@mountkit/memory";
import { openMemoryStorage } from "@mountkit/sql/memory";

assert.ok(process.versions.pnp, "not running under Yarn's Plug'n'Play runtime");
assert.match(process.env.NODE_OPTIONS ?? "", /\.pnp\.cjs/);
const storage = await openMemoryStorage({ dataDir: process.env.DATA_DIR ?? "./data" });
const memory = createMemoryService({ store: storage.memory });
const episode = await memory.api.createEpisode("pnp", { content: "Ada joined Acme in 2021." });
await memory.worker.idle();
assert.equal((await memory.api.getEpisode("pnp", episode.id)).status, "done");
const recalled = await memory.api.recall("pnp", { query: "Where does Ada work?" });
assert.match(JSON.stringify(recalled), /Acme/);
await memory.dispose();
await storage.close();
console.log(JSON.stringify({ host: "memory-pnp", ok: true }));
