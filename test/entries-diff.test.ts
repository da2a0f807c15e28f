// Spec diffs over HTTP (docs/entries.md#spec-diffs) under Express, Fastify and fetch, on real sockets: the diff address
// and the diff of an `apis` entry's revisions; the SQL projects rerun it on SQLite and PostgreSQL.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createEntriesService, jwtVerifier, signHs256 } from "@mountkit/entries";
import { load } from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { japan } from "../packages/entries/test/fixtures/countries.js";
import { call, forEachAdapter } from "./harness.js";

const SECRET = "entries-diff-secret-0123456789abcdef";
const auth = async (sub = "alice") => ({ authorization: `Bearer ${await signHs256(SECRET, { sub })}` });

const pair = (name: string) =>
  load(readFileSync(new URL(`../packages/entries/test/fixtures/diff/${name}.yaml`, import.meta.url), "utf8")) as {
    base: Record<string, unknown>;
    head: Record<string, unknown>;
  };
const removed = pair("removed-operation");
const added = pair("added-operation");

let specServer: Server;
let specBase = "";
beforeAll(async () => {
  const bodies: Record<string, string> = {
    "/v1.json": JSON.stringify(removed.base),
    "/v2.json": JSON.stringify(removed.head),
    "/v3.json": JSON.stringify(added.head),
  };
  specServer = createServer((req, res) => {
    const body = bodies[req.url ?? ""];
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((r) => specServer.listen(0, "127.0.0.1", r));
  specBase = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => specServer.close(r)));

forEachAdapter(
  "spec diffs",
  () => [createEntriesService({ auth: jwtVerifier({ secret: SECRET }), specFetch: { allowPrivate: true } })],
  (t) => {
    const diffAddress = () => `${t.url}/api/dev/diff-openapi/`;
    const data = (type: string, path = "") => `${t.url}/api/v1/types/${type}/data${path}`;

    describe("POST /api/dev/diff-openapi/", () => {
      it("compares a posted text with a fetched document: the removed operation is breaking, listed first", async () => {
        const r = await call(diffAddress(), {
          method: "POST",
          body: { base: JSON.stringify(removed.base), head: { url: `${specBase}/v2.json` } },
        });
        expect(r.status, r.text).toBe(200);
        expect(r.body.breaking).toBe(true);
        expect(r.body.counts.breaking).toBe(1);
        expect(r.body.changes[0]).toMatchObject({
          kind: "breaking",
          action: "remove",
          path: "/paths/~1pets~1{id}/delete",
          operation: { method: "DELETE", path: "/pets/{id}" },
          before: { operationId: "deletePet" },
          message: expect.stringContaining("DELETE /pets/{id}"),
        });
        expect(r.body.base).toEqual({ openapi: "3.0.3", title: "Pets", version: "1.0.0" });
      });

      it("documents as objects, without the slash: an added operation is not breaking", async () => {
        const r = await call(`${t.url}/api/dev/diff-openapi`, { method: "POST", body: { base: added.base, head: added.head } });
        expect(r.status, r.text).toBe(200);
        expect(r.body).toMatchObject({ breaking: false, changeCount: 1, changes: [{ kind: "non-breaking", action: "add" }] });
      });

      it("400 for a body that is not { base, head }; 422 naming the side that is no OpenAPI document or cannot be fetched", async () => {
        const bad = await call(diffAddress(), { method: "POST", body: { base: "x" } });
        expect(bad.status).toBe(400);
        expect(bad.body.requestId).toBe(bad.headers.get("x-request-id"));
        const notSpec = await call(diffAddress(), { method: "POST", body: { base: added.base, head: "just: text" } });
        expect(notSpec.status).toBe(422);
        expect(notSpec.body).toMatchObject({ error: expect.any(String), requestId: notSpec.headers.get("x-request-id") });
        expect(notSpec.body.details[0].path).toMatch(/^head/);
        const missing = await call(diffAddress(), { method: "POST", body: { base: { url: `${specBase}/nope.json` }, head: added.head } });
        expect(missing.status).toBe(422);
        expect(missing.body.details[0].path).toBe("base/url");
      });
    });

    describe("GET .../revisions/:revision/diff/:against", () => {
      it("compares the specs two revisions of an apis entry point at, both ways", async () => {
        const created = await call(data("apis"), {
          method: "POST",
          body: { name: "Pets", description: "d", customData: { specUrl: `${specBase}/v1.json` } },
          headers: await auth(),
        });
        expect(created.status, created.text).toBe(201);
        const id = created.body.id;
        const changed = await call(data("apis", `/${id}`), {
          method: "PATCH",
          body: { customData: { specUrl: `${specBase}/v2.json` } },
          headers: await auth(),
        });
        expect(changed.status, changed.text).toBe(200);
        const forward = await call(data("apis", `/${id}/revisions/1/diff/2`));
        expect(forward.status, forward.text).toBe(200);
        expect(forward.body).toMatchObject({
          breaking: true,
          revisions: { base: 1, head: 2 },
          specUrls: { base: `${specBase}/v1.json`, head: `${specBase}/v2.json` },
          changes: [{ kind: "breaking", action: "remove", path: "/paths/~1pets~1{id}/delete" }],
        });
        const back = await call(data("apis", `/${id}/revisions/2/diff/1`));
        expect(back.body).toMatchObject({
          breaking: false,
          changes: [{ kind: "non-breaking", action: "add", path: "/paths/~1pets~1{id}/delete" }],
        });
        // the same revision: nothing changed
        expect((await call(data("apis", `/${id}/revisions/2/diff/2`))).body).toMatchObject({ breaking: false, changeCount: 0 });
      });

      it("404 for a missing entry or revision, an entry asked for under another type, and a type without specs", async () => {
        const created = await call(data("apis"), {
          method: "POST",
          body: { name: "Pets", description: "d", customData: { specUrl: `${specBase}/v1.json` } },
          headers: await auth(),
        });
        const id = created.body.id;
        for (const path of [
          data("apis", "/ent_missing/revisions/1/diff/1"),
          data("apis", `/${id}/revisions/1/diff/9`),
          data("countries", `/${id}/revisions/1/diff/1`),
        ]) {
          const r = await call(path);
          expect(r.status, path).toBe(404);
          expect(r.body).toMatchObject({ error: expect.any(String), requestId: r.headers.get("x-request-id") });
        }
        const country = await call(data("countries"), {
          method: "POST",
          body: { name: "Japan", description: "d", customData: japan },
          headers: await auth(),
        });
        const none = await call(data("countries", `/${country.body.id}/revisions/1/diff/1`));
        expect(none.status).toBe(404);
        expect(none.body.error).toMatch(/no spec/);
        expect((await call(data("apis", `/${id}/revisions/0/diff/1`))).status).toBe(400);
      });
    });
  },
);
