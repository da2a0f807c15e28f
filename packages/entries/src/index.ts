// @mountkit/entries: the typed-entry catalogue service (type registry, JWT auth, per-type OpenAPI, validation, inventories).
// This root reaches no `node:` module, so it loads on fetch runtimes; Node-only pieces are on `@mountkit/entries/node`.

export {
  type AddressVerdict,
  checkAddress,
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  type FetchedDocument,
  type ResolvedAddress,
  type SafeFetchOptions,
  SpecFetchError,
} from "@mountkit/core/outbound";
export type { EntriesApi } from "./api.js";
export { DEV_ISSUER, devAuth } from "./auth/dev.js";
export { FIREBASE_JWKS_URL, firebaseIssuer, firebaseVerifier } from "./auth/firebase.js";
export {
  ASYMMETRIC_ALGORITHMS,
  DEFAULT_MAX_TOKEN_LIFETIME_SEC,
  type JwtVerifierOptions,
  jwtVerifier,
  MIN_HS256_SECRET_BYTES,
  signHs256,
} from "./auth/jwt.js";
export { AuthError, type Principal, type TokenVerifier } from "./auth/verifier.js";
export type { RevisionDiff } from "./diff/api.js";
export type { ChangeAction, ChangeKind, DiffSide, SpecChange, SpecDiff } from "./diff/types.js";
export type { AnyEntryTypes, EntriesDomain, EntryInput, EntryPatch, InventoryPage, Page } from "./domain/entries.js";
export { entriesError, errorSchema, type Issue } from "./errors.js";
export { catalogue, type Inventory } from "./inventory/catalogue.js";
export {
  type RemoteValidationClientOptions,
  remoteValidationClient,
  sameAddress,
  VALIDATE_PATH,
  type ValidateRequest,
  type ValidationClient,
  ValidatorUnavailableError,
  validationAddress,
  validationClient,
} from "./openapi/client.js";
export { DEFAULT_SPEC_LIMITS, type SpecLimits } from "./openapi/limits.js";
export type { LintOptions, LintReport, LintResult, LintRulesetDefinition, LintSeverity } from "./openapi/lint-types.js";
export { type CheckOptions, parseSpec } from "./openapi/parse.js";
export { type PoolValidateRequest, type SpecPool, SpecPoolBusyError, type SpecPoolOptions } from "./openapi/pool-types.js";
export type { ParsedSpec, ParseOutcome, SpecFormat, SpecIssue } from "./openapi/spec-types.js";
export { type TypeDocumentOptions, typeDocument } from "./openapi/type-document.js";
export type { ValidateSpecOptions, ValidationAnswer, ValidationOutcome } from "./openapi/validate.js";
export {
  createEntriesService,
  ENTRIES_CATALOGUE_PATH,
  ENTRIES_MOUNTS,
  type EntriesService,
  type EntriesServiceOptions,
} from "./service.js";
export { inMemoryEntriesStore, memoryEntriesStore } from "./store/in-memory.js";
export type {
  EntriesStore,
  Entry,
  EntryPosition,
  EntryRevision,
  InventoryInput,
  InventorySummary,
  Operation,
  RevisionNote,
} from "./store/types.js";
export { type ApisCustomData, apisCustomData } from "./types/apis.js";
export { type CountriesCustomData, countriesCustomData, flagOf } from "./types/countries.js";
export {
  type AnyEntryTypeDefinitions,
  type BuiltinEntryTypes,
  builtinTypes,
  type CustomDataOf,
  defineType,
  type EntryType,
  type EntryTypeDefinition,
  type EntryTypesOf,
  entryType,
  type Preparation,
  type PrepareContext,
  TYPE_ID,
  type TypeRegistry,
  typeRegistry,
} from "./types/registry.js";
export { fromEffect, fromJsonSchema, fromStandardSchema, fromZod, type SchemaInput, toTypeSchema } from "./types/schema.js";
export type { JsonSchema, TypeSchema, ValidationIssue, ValidationResult } from "./types/schema-types.js";
