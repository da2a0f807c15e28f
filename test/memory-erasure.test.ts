// Memory erasure and export/import over HTTP (docs/memory.md#erasure, docs/memory.md#export-and-import) under Express,
// Fastify and fetch; rerun on SQLite and PostgreSQL by the http-sqlite/http-postgres projects. The last suites run on
// their own databases: the SQLite file's bytes after an erasure, and a round trip SQLite → PostgreSQL → SQLite.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createMemoryService, type MemoryService } from "@mountkit/memory";
import { allMigrations, sqlMemoryStore } from "@mountkit/sql";
import { describe, expect, it } from "vitest";
import { call, forEachAdapter } from "./harness.js";
import { createTestDatabase, pgSkipReason, type TestDatabase } from "./sql-targets.js";
import { startReceiver } from "./webhook-receiver.js";

const KEY = "mk_test_erasure_a_0123456789";
const KEY_B = "mk_test_erasure_b_0123456789";
const KEY_C = "mk_test_erasure_c_0123456789";
/** A name found in no dictionary: where it shows up, the erased text is still there. */
const SECRET = "Quorvindle";

type Target = { url: string };

function client(t: Target) {
  const as = (key: string) => ({ authorization: `Bearer ${key}` });
  const get = (path: string, key = KEY) => call(`${t.url}${path}`, { headers: as(key) });
  const post = (path: string, body: unknown, key = KEY) => call(`${t.url}${path}`, { method: "POST", headers: as(key), body });
  const del = (path: string, key = KEY) => call(`${t.url}${path}`, { method: "DELETE", headers: as(key) });
  async function ingest(content: string, key = KEY, metadata: Record<string, unknown> = { conversation: "c1" }) {
    const r = await post("/v1/episodes", { content, metadata }, key);
    expect(r.status).toBe(202);
    for (let i = 0; i < 1000; i++) {
      const e = await get(`/v1/episodes/${r.body.id}`, key);
      if (e.body.status === "done" || e.body.status === "failed") return e.body;
      await new Promise((res) => setTimeout(res, 10));
    }
    throw new Error("extraction did not finish");
  }
  /** Everything the brain's routes answer, as one text. */
  async function everything(key = KEY) {
    const parts = await Promise.all([
      post("/v1/recall", { query: `${SECRET} Zabrovic Halloran Lisbon works` }, key),
      get("/v1/entities?limit=100", key),
      get("/v1/edges?limit=100", key),
      get("/v1/episodes?limit=100", key),
      get("/v1/playbooks?limit=100", key),
      get("/v1/erasures", key),
      get("/v1/export", key),
    ]);
    for (const p of parts) expect(p.status).toBe(200);
    const playbooks = await Promise.all(parts[4]!.body.items.map((p: { slug: string }) => get(`/v1/playbooks/${p.slug}`, key)));
    return [...parts, ...playbooks].map((p) => p.text).join("\n");
  }
  const exportLines = async (key = KEY) => (await get("/v1/export", key)).text.split("\n").filter(Boolean);
  const importText = (text: string, key: string) =>
    call(`${t.url}/v1/import`, { method: "POST", headers: { ...as(key), "content-type": "application/x-ndjson" }, rawBody: text });
  return { get, post, del, ingest, everything, exportLines, importText };
}

/** An export's lines without the header (which names the brain exported). */
const records = (lines: string[]) => lines.filter((l) => !l.startsWith('{"type":"header"'));

forEachAdapter(
  "memory erasure",
  async () => {
    const s = createMemoryService({ dailyQuota: 100_000, worker: { pollMs: 20 } });
    await s.keys.create({ brainId: "era", key: KEY });
    await s.keys.create({ brainId: "era-b", key: KEY_B });
    return [s];
  },
  (t) => {
    it("DELETE /v1/episodes/:id leaves no route answering its text; shared facts stay; the audit names no content", async () => {
      const c = client(t);
      await c.ingest("Marta works at Acme.");
      const secret = await c.ingest(`${SECRET} Zabrovic lives in Lisbon.`);
      await c.ingest("Marta lives in Porto.");
      expect(await c.everything()).toContain(SECRET);
      const r = await c.del(`/v1/episodes/${secret.id}`);
      expect(r.status).toBe(200);
      expect(r.body.removed.episodes).toEqual([secret.id]);
      expect(r.body.removed.edges.length).toBeGreaterThan(0);
      expect(r.body.removed.entities.length).toBeGreaterThan(0);
      const after = await c.everything();
      expect(after).not.toContain(SECRET);
      expect(after).not.toContain("Zabrovic");
      expect(after).toContain("Marta");
      expect((await c.get(`/v1/episodes/${secret.id}`)).status).toBe(404);
      expect((await c.del(`/v1/episodes/${secret.id}`)).status).toBe(404);
      const audit = await c.get("/v1/erasures");
      expect(audit.body.items).toMatchObject([{ kind: "episode", target: secret.id, id: r.body.erasure }]);
    });

    it("DELETE /v1/entities/:id erases a subject with every episode and edge naming it", async () => {
      const c = client(t);
      await c.ingest(`${SECRET} Halloran works at Initech.`, KEY_B, {});
      await c.ingest(`Jonas knows ${SECRET} Halloran.`, KEY_B, {});
      await c.ingest("Jonas works at Globex.", KEY_B, {});
      const ents = await c.get("/v1/entities?limit=100", KEY_B);
      const subject = ents.body.items.find((e: { name: string }) => e.name.includes(SECRET));
      expect(subject).toBeDefined();
      const r = await c.del(`/v1/entities/${subject.id}`, KEY_B);
      expect(r.status).toBe(200);
      expect(r.body.removed.entities).toContain(subject.id);
      expect(r.body.removed.episodes).toHaveLength(2);
      const after = await c.everything(KEY_B);
      expect(after).not.toContain(SECRET);
      expect(after).not.toContain("Halloran");
      expect(after).toContain("Globex");
      expect((await c.del(`/v1/entities/${subject.id}`, KEY_B)).status).toBe(404);
    });

    it("an export imported into another brain exports the same records; an import into a brain with records is a 409", async () => {
      const c = client(t);
      const s = t.services[0] as MemoryService;
      const brain = `imp-${t.url.replace(/\W/g, "")}`;
      const key = `mk_test_import_${brain}_0123456789`.slice(0, 60);
      await s.keys.create({ brainId: brain, key });
      const source = await s.keys.create({ brainId: `${brain}-source` });
      await c.ingest("Jonas works at Globex.", source.key);
      await c.ingest("Jonas lives in Oslo.", source.key);
      const first = await c.exportLines(source.key);
      expect(JSON.parse(first.at(-1)!)).toMatchObject({ type: "end" });
      const imported = await c.importText(`${first.join("\n")}\n`, key);
      expect(imported.status).toBe(200);
      expect(imported.body.counts.edges).toBe(records(first).filter((l) => l.startsWith('{"type":"edge"')).length);
      expect(records(await c.exportLines(key))).toEqual(records(first));
      expect((await c.importText(`${first.join("\n")}\n`, key)).status).toBe(409);
      const cut = await s.keys.create({ brainId: `${brain}-cut` });
      expect((await c.importText(first.slice(0, -1).join("\n"), cut.key)).status).toBe(400);
      // what a cut import wrote stays (the brain is deleted to start again): the next import finds it not empty
      expect((await c.importText(`${first.join("\n")}\n`, cut.key)).status).toBe(409);
      const other = await s.keys.create({ brainId: `${brain}-other` });
      expect((await c.importText('{"type":"nonsense"}\n', other.key)).status).toBe(400);
    });

    it("a deleted brain answers nothing; its key is gone", async () => {
      const c = client(t);
      const s = t.services[0] as MemoryService;
      const k = await s.keys.create({ brainId: `gone-${t.url.replace(/\W/g, "")}` });
      await c.ingest(`${SECRET} owns a boat.`, k.key, {});
      const r = await s.brains.delete(k.brainId);
      expect(r).toMatchObject({ kind: "brain", target: k.brainId });
      expect((await c.get("/v1/episodes", k.key)).status).toBe(401);
      await expect(s.brains.delete(k.brainId)).rejects.toMatchObject({ status: 404 });
    });
  },
);

/** Every file of a SQLite database (main, -wal, -shm) as one buffer. */
function fileBytes(dir: string): Buffer {
  return Buffer.concat(
    readdirSync(dir)
      .filter((f) => f.startsWith("mountkit.sqlite"))
      .map((f) => readFileSync(join(dir, f))),
  );
}

describe("memory erasure on a SQLite file", () => {
  it("after DELETE /v1/episodes/:id the erased text is in neither the database file nor its WAL", async () => {
    const target = await createTestDatabase("sqlite");
    const db = await target.open({ migrations: [...allMigrations] });
    const s = createMemoryService({ store: sqlMemoryStore(db), dailyQuota: 100_000, worker: { pollMs: 20 } });
    const { listen } = await import("./servers.js");
    const running = await listen("fetch", [s]);
    try {
      await s.keys.create({ brainId: "file", key: KEY_C });
      const c = client({ url: running.url });
      for (let i = 0; i < 5; i++) await c.ingest(`Marta met client number ${i} at Acme.`, KEY_C);
      const secret = await c.ingest(`${SECRET} Zabrovic lives in Lisbon and works at Vantorix.`, KEY_C);
      for (let i = 0; i < 5; i++) await c.ingest(`Marta called supplier number ${i} from Porto.`, KEY_C);
      const dir = target.env.DATA_DIR!;
      const needle = (b: Buffer, s: string) => b.includes(Buffer.from(s)) || b.includes(Buffer.from(s.toLowerCase()));
      expect(needle(fileBytes(dir), SECRET)).toBe(true);
      expect((await c.del(`/v1/episodes/${secret.id}`, KEY_C)).status).toBe(200);
      const bytes = fileBytes(dir);
      for (const word of [SECRET, "Zabrovic", "Vantorix"]) expect(needle(bytes, word), word).toBe(false);
      expect(needle(bytes, "Marta")).toBe(true);
    } finally {
      await running.close();
      await s.dispose();
      await db.close();
      await target.drop();
    }
  }, 60_000);
});

describe("memory erasure and the webhook log on a SQLite file", () => {
  it("an erased episode's events and deliveries are deleted, sent or not, and a deleted brain leaves no event behind", async () => {
    const target = await createTestDatabase("sqlite");
    const db = await target.open({ migrations: [...allMigrations] });
    const receiver = await startReceiver();
    const s = createMemoryService({
      store: sqlMemoryStore(db),
      dailyQuota: 100_000,
      worker: { pollMs: 20 },
      webhooks: { allowPrivate: true, pollMs: 20 },
    });
    const { listen } = await import("./servers.js");
    const running = await listen("fetch", [s]);
    try {
      await s.keys.create({ brainId: "hooked", key: KEY_C });
      const c = client({ url: running.url });
      const hook = await c.post("/v1/webhooks", { url: receiver.url, events: ["*"] }, KEY_C);
      expect(hook.status, hook.text).toBe(201);
      const kept = await c.ingest("Marta met a client at Acme.", KEY_C);
      const secret = await c.ingest(`${SECRET} Zabrovic lives in Lisbon and works at Vantorix.`, KEY_C);
      const sent = (id: string) => receiver.got.filter((g) => g.payload.data.id === id);
      for (let i = 0; i < 500 && !(sent(kept.id).length && sent(secret.id).length); i++) await new Promise((r) => setTimeout(r, 20));
      expect(sent(secret.id)[0]!.body).toContain(SECRET);
      // one more event after the receiver went down: it stays pending, with the erased text in it
      receiver.down = true;
      const pending = await c.ingest(`${SECRET} Zabrovic moved to Porto.`, KEY_C);
      const log = async () =>
        (await c.get(`/v1/webhooks/${hook.body.id}/deliveries?limit=100`, KEY_C)).body.data as Array<{ subject: string }>;
      for (let i = 0; i < 500 && !(await log()).some((d) => d.subject === pending.id); i++) await new Promise((r) => setTimeout(r, 20));
      const dir = target.env.DATA_DIR!;
      const needle = (b: Buffer, w: string) => b.includes(Buffer.from(w)) || b.includes(Buffer.from(w.toLowerCase()));
      expect(needle(fileBytes(dir), SECRET)).toBe(true);

      for (const id of [secret.id, pending.id]) expect((await c.del(`/v1/episodes/${id}`, KEY_C)).status).toBe(200);
      const subjects = (await log()).map((d) => d.subject);
      expect(subjects).toContain(kept.id);
      expect(subjects).not.toContain(secret.id);
      expect(subjects).not.toContain(pending.id);
      // neither the queue's jobs nor the delivery log keep the text, in the file or its WAL
      const bytes = fileBytes(dir);
      for (const word of [SECRET, "Zabrovic", "Vantorix"]) expect(needle(bytes, word), word).toBe(false);
      expect(needle(bytes, "Marta")).toBe(true);
      // the pending delivery is not sent once the receiver is back
      receiver.down = false;
      await s.webhooks.idle();
      expect(receiver.got.filter((g) => g.body.includes(SECRET))).toHaveLength(1);

      // a deleted brain: its subscriptions with their log, and its events in the queue
      await s.brains.delete("hooked");
      for (const word of ["Marta", "Acme"]) expect(needle(fileBytes(dir), word), word).toBe(false);
    } finally {
      await running.close();
      await s.dispose();
      await db.close();
      await target.drop();
      await receiver.close();
    }
  }, 60_000);
});

const pgSkip = pgSkipReason();
(pgSkip ? describe.skip : describe)(`memory export across engines${pgSkip ? ` (skipped: ${pgSkip})` : ""}`, () => {
  it("an export from SQLite imported into PostgreSQL and back exports equal", async () => {
    const targets: TestDatabase[] = [
      await createTestDatabase("sqlite"),
      await createTestDatabase("postgres"),
      await createTestDatabase("sqlite"),
    ];
    const dbs = await Promise.all(targets.map((t) => t.open({ migrations: [...allMigrations] })));
    const services = dbs.map((db, i) =>
      createMemoryService({ store: sqlMemoryStore(db), dailyQuota: 100_000, worker: { pollMs: 20 }, basePath: `/s${i}` }),
    );
    const { listen } = await import("./servers.js");
    const running = await listen("express", services);
    try {
      for (const s of services) await s.keys.create({ brainId: "x", key: KEY });
      const on = (i: number) => client({ url: `${running.url}/s${i}` });
      await on(0).ingest("Marta works at Acme.");
      await on(0).ingest("Marta lives in Lisbon since 2019.");
      await on(0).ingest("Marta no longer works at Acme; she joined Globex.");
      await on(0).ingest(`${SECRET} is Marta's manager.`);
      const first = await on(0).exportLines();
      expect(records(first).length).toBeGreaterThan(6);
      expect((await on(1).importText(`${first.join("\n")}\n`, KEY)).status).toBe(200);
      const second = await on(1).exportLines();
      // the header names the brain as each database created it; every record line is equal
      expect(records(second)).toEqual(records(first));
      expect((await on(2).importText(`${second.join("\n")}\n`, KEY)).status).toBe(200);
      expect(records(await on(2).exportLines())).toEqual(records(first));
      // the imported brains answer as the first does
      const recalled = await Promise.all([0, 1, 2].map((i) => on(i).post("/v1/recall", { query: "Where does Marta work?" })));
      const facts = recalled.map((r) => r.body.edges.map((e: { fact: string }) => e.fact).sort());
      expect(facts[1]).toEqual(facts[0]);
      expect(facts[2]).toEqual(facts[0]);
    } finally {
      await running.close();
      for (const s of services) await s.dispose();
      for (const db of dbs) await db.close();
      for (const t of targets) await t.drop();
    }
  }, 120_000);
});
