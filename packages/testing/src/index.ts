// @mountkit/testing: every store conformance suite in one import, for third-party store authors.
// Each suite lives beside its interface (`@mountkit/<service>/testing`); this package gathers them.
export {
  type DescribeBlobStoreOptions,
  type DescribeSupportStoreOptions,
  describeBlobStore,
  describeSupportStore,
} from "@mountkit/support/testing";
export { type DescribeOptions as DescribeMemoryStoreOptions, describeMemoryStore } from "@mountkit/memory/testing";
export { type DescribeEntriesStoreOptions, describeEntriesStore, type EntriesStoreTarget } from "@mountkit/entries/testing";
