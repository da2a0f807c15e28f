// What `@mountkit/core/outbound` offers on every runtime: the address policy, the fetch policy and its errors.
export { type AddressVerdict, checkAddress, isIpLiteral, METADATA_HOSTS } from "./address-policy.js";
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  type FetchedDocument,
  fetchUnderPolicy,
  IncompleteBody,
  type OutboundAnswer,
  type OutboundRequest,
  type ResolvedAddress,
  type SafeFetchOptions,
  SpecFetchError,
  type SpecTransport,
  sendUnderPolicy,
  type TransportResponse,
  tooLarge,
} from "./policy.js";
