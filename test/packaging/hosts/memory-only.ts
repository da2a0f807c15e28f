// Memory-only host: @mountkit/memory with its SQLite store from @mountkit/sql/memory, nothing else of the kit.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mountkit } from "@mountkit/express";
import { createMemoryService } from "@mountkit/memory";
import { openMemoryStorage } from "@mountkit/sql/memory";
import express from "express";
import { requireEach } from "./probe.js";

const storage = await openMemoryStorage({ dataDir: process.env.DATA_DIR ?? "./data" });
const memory = createMemoryService({ store: storage.memory });
const { key } = await memory.keys.create({ brainId: "brain-1" });
const app = express();
const kit = mountkit(memory);
app.use("/kit", kit);
const server = kit.attach(createServer(app));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/kit`;

const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const posted = await fetch(`${base}/v1/episodes`, {
  method: "POST",
  headers: auth,
  body: JSON.stringify({ content: "Ada joined Acme in 2024." }),
});
assert.ok(posted.status === 201 || posted.status === 202, `post episode: ${posted.status} ${await posted.clone().text()}`);
const listed = await fetch(`${base}/v1/episodes`, { headers: auth });
assert.equal(listed.status, 200);
const denied = await fetch(`${base}/v1/episodes`);
assert.equal(denied.status, 401);
assert.equal(typeof ((await denied.json()) as { error?: unknown }).error, "string");
requireEach(["@mountkit/core", "@mountkit/memory", "@mountkit/sql/memory", "@mountkit/express", "@mountkit/node"]);
await new Promise<void>((resolve) => server.close(() => resolve()));
await memory.dispose();
await storage.close();
console.log(JSON.stringify({ host: "memory-only", ok: true }));
