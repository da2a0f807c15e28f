// Entry revisions and ETags (docs/entries.md#revisions-and-versions) under Express, Fastify and fetch, on real
// sockets; the SQL projects rerun it on SQLite and PostgreSQL.
import { createEntriesService, jwtVerifier, signHs256 } from "@mountkit/entries";
import { describe, expect, it } from "vitest";
import { japan } from "../packages/entries/test/fixtures/countries.js";
import { call, forEachAdapter } from "./harness.js";

const SECRET = "entries-revisions-secret-0123456789abcdef";
const auth = async (sub = "alice") => ({ authorization: `Bearer ${await signHs256(SECRET, { sub })}` });

forEachAdapter(
  "entry revisions",
  () => [createEntriesService({ auth: jwtVerifier({ secret: SECRET }) })],
  (t) => {
    const data = (path = "") => `${t.url}/api/v1/types/countries/data${path}`;
    const submit = async (name = "Japan", sub = "alice") => {
      const r = await call(data(), {
        method: "POST",
        body: { name, description: "d", customData: japan, tags: ["asia"] },
        headers: await auth(sub),
      });
      expect(r.status, r.text).toBe(201);
      return r;
    };
    const patch = async (id: string, body: unknown, headers: Record<string, string> = {}, sub = "alice") =>
      call(data(`/${id}`), { method: "PATCH", body, headers: { ...(await auth(sub)), ...headers } });

    describe("ETags", () => {
      it("every answer carrying the entry names its version; If-None-Match answers 304 without a body", async () => {
        const created = await submit();
        const etag = created.headers.get("etag")!;
        expect(etag).toMatch(/^"[0-9a-z]+"$/);
        expect(created.headers.get("last-modified")).toBe(new Date(created.body.dateModified).toUTCString());
        const got = await call(data(`/${created.body.id}`));
        expect(got.headers.get("etag")).toBe(etag);
        for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
          const r = await call(data(`/${created.body.id}`), { headers: { "if-none-match": inm } });
          expect(r.status, inm).toBe(304);
          expect(r.text).toBe("");
          expect(r.headers.get("etag")).toBe(etag);
        }
        expect((await call(data(`/${created.body.id}`), { headers: { "if-none-match": '"other"' } })).status).toBe(200);
        const changed = await patch(created.body.id, { name: "Nippon" });
        expect(changed.status).toBe(200);
        expect(changed.headers.get("etag")).not.toBe(etag);
        expect((await call(data(`/${created.body.id}`), { headers: { "if-none-match": etag } })).status).toBe(200);
      });

      it("If-Match: a stale version answers 412 and changes nothing; the current one, a list holding it, or * goes ahead", async () => {
        const created = await submit();
        const first = created.headers.get("etag")!;
        const v2 = await patch(created.body.id, { name: "Two" }, { "if-match": first });
        expect(v2.status).toBe(200);
        const stale = await patch(created.body.id, { name: "Lost" }, { "if-match": first });
        expect(stale.status).toBe(412);
        expect(stale.body).toMatchObject({ error: expect.stringContaining("changed"), requestId: expect.any(String) });
        for (const weak of [`W/${v2.headers.get("etag")}`, "not-a-tag"])
          expect((await patch(created.body.id, { name: "Weak" }, { "if-match": weak })).status, weak).toBe(412);
        expect((await call(data(`/${created.body.id}`))).body.name).toBe("Two");
        const v3 = await patch(created.body.id, { name: "Three" }, { "if-match": `"x", ${v2.headers.get("etag")}` });
        expect(v3.status).toBe(200);
        expect((await patch(created.body.id, { name: "Four" }, { "if-match": "*" })).status).toBe(200);
        // someone else's entry: 403 whatever the tag; a missing one: 404
        expect((await patch(created.body.id, { name: "X" }, { "if-match": first }, "mallory")).status).toBe(403);
        expect((await patch("ent_missing", { name: "X" }, { "if-match": first })).status).toBe(404);
      });

      it("two concurrent PATCH with the same If-Match: one 200, one 412, and the entry is the winner's", async () => {
        const created = await submit();
        const etag = created.headers.get("etag")!;
        const both = await Promise.all(["A", "B"].map((name) => patch(created.body.id, { name }, { "if-match": etag })));
        expect(both.map((r) => r.status).sort()).toEqual([200, 412]);
        const winner = both.find((r) => r.status === 200)!;
        expect((await call(data(`/${created.body.id}`))).body.name).toBe(winner.body.name);
        const revisions = await call(data(`/${created.body.id}/revisions`));
        expect(revisions.body.items.map((r: { revision: number }) => r.revision)).toEqual([2, 1]);
      });

      it("DELETE with a stale If-Match answers 412 and keeps the entry; with the current one it deletes", async () => {
        const created = await submit();
        const etag = created.headers.get("etag")!;
        expect((await patch(created.body.id, { name: "Moved" })).status).toBe(200);
        const del = async (ifMatch: string) =>
          call(data(`/${created.body.id}`), { method: "DELETE", headers: { ...(await auth()), "if-match": ifMatch } });
        expect((await del(etag)).status).toBe(412);
        expect((await call(data(`/${created.body.id}`))).status).toBe(200);
        const current = (await call(data(`/${created.body.id}`))).headers.get("etag")!;
        expect((await del(current)).status).toBe(204);
        expect((await call(data(`/${created.body.id}`))).status).toBe(404);
        expect((await call(data(`/${created.body.id}/revisions`))).status).toBe(404);
      });
    });

    describe("revisions", () => {
      it("who changed what and when, newest first, paged; one by number; 404 for another entry's or none", async () => {
        const created = await submit("Japan");
        const id = created.body.id;
        await patch(id, { name: "Nippon" });
        await patch(id, { tags: ["east"] });
        const list = await call(data(`/${id}/revisions`));
        expect(list.status).toBe(200);
        expect(list.body.items.map((r: { revision: number }) => r.revision)).toEqual([3, 2, 1]);
        expect(list.body.items[2]).toEqual({
          typeId: "countries",
          entryId: id,
          revision: 1,
          authorId: "alice",
          date: created.body.dateModified,
          name: "Japan",
          description: "d",
          customData: created.body.customData,
          tags: ["asia"],
          derivedTags: [],
          restoredFrom: null,
        });
        expect(list.body.items[0]).toMatchObject({ revision: 3, name: "Nippon", tags: ["east"] });
        const seen: number[] = [];
        let cursor: string | null = null;
        do {
          const page: { status: number; body: { items: Array<{ revision: number }>; next: string | null } } = await call(
            data(`/${id}/revisions?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
          );
          expect(page.status).toBe(200);
          seen.push(...page.body.items.map((r) => r.revision));
          cursor = page.body.next;
        } while (cursor);
        expect(seen).toEqual([3, 2, 1]);
        expect((await call(data(`/${id}/revisions/2`))).body).toMatchObject({ revision: 2, name: "Nippon", tags: ["asia"] });
        expect((await call(data(`/${id}/revisions/9`))).status).toBe(404);
        expect((await call(data("/ent_missing/revisions"))).status).toBe(404);
        expect((await call(data("/ent_missing/revisions/1"))).status).toBe(404);
        // the same id under another type is another entry
        expect((await call(`${t.url}/api/v1/types/apis/data/${id}/revisions/1`)).status).toBe(404);
        for (const bad of ["0", "abc", "1.5", "-1"]) expect((await call(data(`/${id}/revisions/${bad}`))).status, bad).toBe(400);
        expect((await call(data(`/${id}/revisions?cursor=nope`))).status).toBe(400);
      });

      it("restore makes an old revision's fields current as a new revision; owner only; honours If-Match", async () => {
        const created = await submit("Japan");
        const id = created.body.id;
        const moved = await patch(id, { name: "Nippon", description: "changed", tags: [] });
        const restore = async (revision: number, headers: Record<string, string> = {}, sub = "alice") =>
          call(data(`/${id}/revisions/${revision}/restore`), { method: "POST", headers: { ...(await auth(sub)), ...headers } });
        expect((await restore(1, {}, "mallory")).status).toBe(403);
        expect((await restore(1, { "if-match": created.headers.get("etag")! })).status).toBe(412);
        expect((await restore(7)).status).toBe(404);
        expect((await call(data(`/${id}/revisions/1/restore`), { method: "POST" })).status).toBe(401);
        const back = await restore(1, { "if-match": moved.headers.get("etag")! });
        expect(back.status, back.text).toBe(200);
        expect(back.body).toMatchObject({ id, name: "Japan", description: "d", tags: ["asia"] });
        expect(back.body.dateModified).toBeGreaterThan(moved.body.dateModified);
        expect(back.headers.get("etag")).toBe((await call(data(`/${id}`))).headers.get("etag"));
        const latest = (await call(data(`/${id}/revisions?limit=1`))).body.items[0];
        expect(latest).toMatchObject({ revision: 3, name: "Japan", restoredFrom: 1, authorId: "alice" });
      });
    });
  },
);
