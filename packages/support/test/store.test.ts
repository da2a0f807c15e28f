// Runs the exported SupportStore conformance suite against the in-memory store.
import { inMemorySupportStore } from "@mountkit/support";
import { describeSupportStore } from "@mountkit/support/testing";

describeSupportStore("memory", async () => ({ store: inMemorySupportStore() }));
