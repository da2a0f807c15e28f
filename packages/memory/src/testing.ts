// Store conformance suite: every MemoryStore (in-memory, SQLite, PostgreSQL, third-party) runs it.
// Usage: describeMemoryStore("sqlite", async () => ({ store, close }), { skip: [{ reason, tests }] }).
// The cases live by subject in src/conformance/; this file runs them against one store factory.
import { type SkipGroup, skipLookup } from "@mountkit/core/testing";
import { describe, it } from "vitest";
import { accessTests } from "./conformance/access.js";
import { commitReferenceTests, commitTests } from "./conformance/commits.js";
import { episodeTests } from "./conformance/episodes.js";
import { erasureTests } from "./conformance/erasure.js";
import { eventTests } from "./conformance/events.js";
import type { StoreTest } from "./conformance/fixtures.js";
import { invalidationTests } from "./conformance/invalidation.js";
import { pageTests } from "./conformance/pages.js";
import { scopeTests } from "./conformance/scopes.js";
import { searchTests } from "./conformance/search.js";
import { timeTests } from "./conformance/time.js";
import { vectorTests } from "./conformance/vectors.js";
import type { MemoryStore } from "./store/types.js";

export { commitOf, edge, entity, episode } from "./conformance/fixtures.js";

export interface StoreFactoryResult {
  store: MemoryStore;
  close?(): Promise<void>;
}

export interface DescribeOptions {
  /** Tests to skip, each with a written reason. */
  skip?: SkipGroup[];
}

export function describeMemoryStore(name: string, factory: () => Promise<StoreFactoryResult>, options: DescribeOptions = {}) {
  const lookup = skipLookup(options.skip);
  const test: StoreTest = (title, fn) => {
    const t = lookup(title);
    (t.skipped ? it.skip : it)(
      t.title,
      async () => {
        const { store, close } = await factory();
        try {
          await fn(store);
        } finally {
          await close?.();
        }
      },
      30_000,
    );
  };

  describe(`MemoryStore conformance: ${name}`, () => {
    episodeTests(test);
    commitTests(test);
    commitReferenceTests(test);
    invalidationTests(test);
    eventTests(test);
    timeTests(test);
    searchTests(test);
    pageTests(test);
    accessTests(test);
    vectorTests(test);
    scopeTests(test);
    erasureTests(test);
  });
}
