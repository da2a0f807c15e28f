// @mountkit/core: the framework-agnostic kernel every service and adapter builds on.
export * from "./body.js";
export * from "./bus.js";
export * from "./clock.js";
export * from "./errors.js";
export * from "./fetch.js";
export * from "./http.js";
export * from "./ids.js";
export * from "./limiter.js";
export * from "./logger.js";
export * from "./nulls.js";
export * from "./openapi.js";
export * from "./queue.js";
export * from "./route.js";
export * from "./router.js";
export * from "./service.js";
export * from "./sse.js";
export * from "./testing.js";
