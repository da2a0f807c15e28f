// The SupportStore and BlobStore conformance suites: every store implementation (memory, SQLite, PostgreSQL, files,
// third-party) runs its suite.
// Usage: describeSupportStore("sqlite", async () => ({ store, close }), { skip: [{ reason, tests }] }).
// The cases live by subject in src/conformance/; this file runs them against one store factory.
import { type SkipGroup, skipLookup } from "@mountkit/core/testing";
import { afterEach, beforeEach, describe, it } from "vitest";
import type { BlobStore } from "./attachments/types.js";
import { appendTests } from "./conformance/appends.js";
import { blobTests } from "./conformance/blobs.js";
import { changeTests } from "./conformance/changes.js";
import { createDedupTests, messageDedupTests } from "./conformance/dedup.js";
import { cannedReplyTests, noteTests } from "./conformance/desk.js";
import type { StoreTest } from "./conformance/fixtures.js";
import { listingTests } from "./conformance/listing.js";
import { logTests } from "./conformance/log.js";
import { outboxTests } from "./conformance/outbox.js";
import { ratingTests } from "./conformance/ratings.js";
import { recordTests } from "./conformance/records.js";
import type { SupportStore } from "./store/types.js";

export interface DescribeSupportStoreOptions {
  /** Tests to skip, each group with the reason written down. */
  skip?: SkipGroup[];
}

export function describeSupportStore(
  name: string,
  factory: () => Promise<{ store: SupportStore; close?(): Promise<void> | void }>,
  options: DescribeSupportStoreOptions = {},
) {
  const lookup = skipLookup(options.skip);

  describe(`SupportStore: ${name}`, () => {
    let store: SupportStore;
    let close: (() => Promise<void> | void) | undefined;
    beforeEach(async () => {
      const made = await factory();
      store = made.store;
      close = made.close;
    });
    afterEach(async () => {
      await close?.();
    });
    const test: StoreTest = (title, fn) => {
      const t = lookup(title);
      (t.skipped ? it.skip : it)(t.title, () => fn(store));
    };
    for (const group of [
      recordTests,
      listingTests,
      appendTests,
      messageDedupTests,
      createDedupTests,
      changeTests,
      ratingTests,
      logTests,
      outboxTests,
      noteTests,
      cannedReplyTests,
    ])
      group(test);
  });
}

export interface DescribeBlobStoreOptions {
  /** Tests to skip, each group with the reason written down. */
  skip?: SkipGroup[];
}

/**
 * The BlobStore conformance suite (docs/support.md#blob-stores): in memory, on files, in SQL, or a host's object store.
 * Usage: describeBlobStore("s3", async () => ({ blobs, close }), { skip: [{ reason, tests }] }).
 */
export function describeBlobStore(
  name: string,
  factory: () => Promise<{ blobs: BlobStore; close?(): Promise<void> | void }>,
  options: DescribeBlobStoreOptions = {},
) {
  const lookup = skipLookup(options.skip);
  describe(`BlobStore: ${name}`, () => {
    let blobs: BlobStore;
    let close: (() => Promise<void> | void) | undefined;
    beforeEach(async () => {
      const made = await factory();
      blobs = made.blobs;
      close = made.close;
    });
    afterEach(async () => {
      await close?.();
    });
    blobTests((title, fn) => {
      const t = lookup(title);
      (t.skipped ? it.skip : it)(t.title, () => fn(blobs));
    });
  });
}
