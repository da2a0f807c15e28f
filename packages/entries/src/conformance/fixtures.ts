// What the store conformance suite (src/testing.ts) shares: unique ids, entries and inventories to store, the test registrar.
import type { Entry, InventoryInput } from "../store/types.js";

let counter = 0;
export const uid = (p: string) => `${p}_${Date.now().toString(36)}_${(counter++).toString(36)}`;

export function makeEntry(over: Partial<Entry> = {}): Entry {
  return {
    id: uid("ent"),
    typeId: "countries",
    ownerId: "alice",
    name: "Name",
    description: "Description",
    customData: { nested: { list: [1, "two", { three: true }] }, unicode: "Ångström ✓" },
    tags: ["a"],
    derivedTags: [],
    dateCreated: 1_700_000_000_000,
    dateModified: 1_700_000_000_000,
    ...over,
  };
}

export function makeInventory(n: number, version = "2.0"): InventoryInput {
  const operations = Array.from({ length: n }, (_, i) => ({
    method: i % 2 ? "POST" : "GET",
    path: `/v1/r${String(Math.floor(i / 2)).padStart(4, "0")}`,
    ...(i % 3 ? { operationId: `op${i}` } : {}),
    ...(i % 5 ? { summary: `Summary ${i}` } : {}),
  }));
  return {
    specVersion: "3.1.0",
    title: "API",
    version,
    endpoints: n,
    paths: Math.ceil(n / 2),
    tags: ["api", "openapi", `v${version}`],
    operations,
  };
}

export type Register = (title: string, fn: () => Promise<void>) => void;
