// Store conformance suite: every EntriesStore (in-memory, SQLite, PostgreSQL, third-party) runs it.
// Usage: describeEntriesStore("sqlite", async () => ({ store, close }), { skip: [{ reason, tests }] }).
// The cases live by subject in src/conformance/; this file runs them against one store.
import { type SkipGroup, skipLookup } from "@mountkit/core/testing";
import { afterAll, beforeAll, describe, it } from "vitest";
import { changeTests } from "./conformance/changes.js";
import type { Register } from "./conformance/fixtures.js";
import { listTests } from "./conformance/listing.js";
import { outboxTests } from "./conformance/outbox.js";
import { recordTests } from "./conformance/records.js";
import { revisionTests } from "./conformance/revisions.js";
import type { EntriesStore } from "./store/types.js";

export interface EntriesStoreTarget {
  store: EntriesStore;
  close?(): Promise<void>;
}

export interface DescribeEntriesStoreOptions {
  /** Tests to skip, each with a written reason. */
  skip?: SkipGroup[];
}

export function describeEntriesStore(name: string, factory: () => Promise<EntriesStoreTarget>, options: DescribeEntriesStoreOptions = {}) {
  const lookup = skipLookup(options.skip);
  const test: Register = (title, fn) => {
    const t = lookup(title);
    (t.skipped ? it.skip : it)(t.title, fn);
  };

  describe(`EntriesStore conformance: ${name}`, () => {
    let target: EntriesStoreTarget;
    let store: EntriesStore;
    beforeAll(async () => {
      target = await factory();
      store = target.store;
    });
    afterAll(async () => {
      await target?.close?.();
    });
    const s = () => store;
    recordTests(test, s);
    listTests(test, s);
    changeTests(test, s);
    revisionTests(test, s);
    outboxTests(test, s);
  });
}
