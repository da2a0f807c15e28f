// What the host-safety scenarios send (issue 24): the `$ref` pointer-chain document, a local host that publishes it
// for `{ url }` and `specUrl` fetches, and the large episode texts, all built before any probe starts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { refChainBomb } from "../../packages/entries/test/fixtures/hostile-specs.js";
import { largeEpisode } from "../../packages/memory/test/large-episodes.js";

/**
 * The issue's ~1 KB document (the entries package's generator): each schema `Gi` is a `$ref` whose pointer runs through
 * `G(i-1)` four times, then back to the schemas map; a resolver that follows the `$ref`s met inside a pointer without
 * memoising does about 4^13 steps, minutes of one thread.
 */
export const pointerChainSpec = (): string => refChainBomb();

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
