// What authentication is to the service: a bearer token in, the subject out. Hosts may plug in their own verifier.
// The shape lives in the core (`@mountkit/core`), shared with the support service's agent side; entries re-exports it.
export { AuthError, type Principal, type TokenVerifier } from "@mountkit/core";
