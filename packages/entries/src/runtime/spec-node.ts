// `#runtime/spec` on Node: the validation process pool, and the SSRF-safe fetch that pins each connection to the
// address it vetted (DNS resolved by the kit).
import { safeFetch } from "@mountkit/core/outbound";
import { diffPool } from "../diff/pool.js";
import { specPool } from "../openapi/pool.js";
import type { SpecRuntime } from "./spec-types.js";

export const specRuntime: SpecRuntime = { specPool, diffPool, safeFetch };
