// What the host-safety scenarios send (issue 24): the `$ref` pointer-chain document, a local host that publishes it
// for `{ url }` and `specUrl` fetches, and the large episode texts, all built before any probe starts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { largeEpisode } from "../../packages/memory/test/large-episodes.js";

/**
 * The issue's ~1 KB document: each schema `Gi` is a `$ref` whose pointer runs through `G(i-1)` `repeats` times, then
 * through `R` (a `$ref` to the root) back to the schemas map. A resolver that follows the `$ref`s met inside a pointer
 * without memoising does about `repeats^levels` steps (4^13: minutes of one thread); every pointer resolves, so no
 * dangling-reference shortcut hides the cost.
 */
export function pointerChainSpec(levels = 13, repeats = 4): string {
  const schemas: Record<string, unknown> = { R: { $ref: "#" }, G0: { $ref: "#/components/schemas" } };
  for (let i = 1; i <= levels; i++) {
    const through = Array.from({ length: repeats }, () => `G${i - 1}`).join("/");
    schemas[`G${i}`] = { $ref: `#/components/schemas/${through}/R/components/schemas` };
  }
  return JSON.stringify({ openapi: "3.0.3", info: { title: "chain", version: "1" }, paths: {}, components: { schemas } });
}

export interface SpecHost {
  /** `url(name)` is where the document of that name is published. */
  url(name: string): string;
  close(): Promise<void>;
}

/** Publishes `docs` (name → JSON text) on 127.0.0.1: the server under test fetches them with SPEC_FETCH_ALLOW_PRIVATE=1. */
export async function serveSpecs(docs: Record<string, string>): Promise<SpecHost> {
  const server = createServer((req, res) => {
    const doc = docs[(req.url ?? "").replace(/^\//, "")];
    if (doc === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(doc) }).end(doc);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** `count` request bodies of `POST /v1/episodes`, each about `bytes` characters of varied sentences (seeded). */
export function episodeBodies(count: number, bytes: number, seed = 24): string[] {
  return Array.from({ length: count }, (_, i) => JSON.stringify({ content: largeEpisode(seed * 1000 + i, bytes) }));
}
