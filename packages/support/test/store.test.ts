// Runs the exported SupportStore conformance suite against the in-memory store.
import { memorySupportStore } from "@mountkit/support";
import { describeSupportStore } from "@mountkit/support/testing";

describeSupportStore("memory", async () => ({ store: memorySupportStore() }));
