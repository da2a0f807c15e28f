import { inMemoryMemoryStore } from "../src/index.js";
import { describeMemoryStore } from "../src/testing.js";

describeMemoryStore("in-memory", async () => ({ store: inMemoryMemoryStore() }));
