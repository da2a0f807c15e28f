#!/usr/bin/env node
// The `mountkit-memory` executable: an entry of its own with no "am I the main module" guard, which a
// bundler's chunking would move away from the file Node actually runs.
import { main } from "./cli.js";

await main();
