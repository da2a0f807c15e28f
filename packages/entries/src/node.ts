// @mountkit/entries/node: the Node-only pieces the service runs on there (the root picks them through `#runtime/spec`):
// the SSRF-safe spec fetch pinned to vetted addresses, the worker-thread spec pool, and the spec validator itself.
export { safeFetch, vetTarget } from "@mountkit/core/outbound";
export { specPool } from "./openapi/pool.js";
export { type ValidateSpecOptions, type ValidationAnswer, type ValidationOutcome, validateSpec } from "./openapi/validate.js";
