// The in-memory store against the exported conformance suite.
import { inMemoryEntriesStore } from "@mountkit/entries";
import { describeEntriesStore } from "@mountkit/entries/testing";

describeEntriesStore("memory", async () => ({ store: inMemoryEntriesStore() }));
