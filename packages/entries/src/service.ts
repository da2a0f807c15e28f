// createEntriesService: the typed-entry catalogue as a mountkit service (routes, fetch, api, per-type OpenAPI).

import {
  type Clock,
  defineService,
  documented,
  type IdGenerator,
  type Logger,
  type Middleware,
  pageRoutes,
  randomIds,
  type Service,
  systemClock,
} from "@mountkit/core";
import type { SafeFetchOptions } from "@mountkit/core/outbound";
import { startWebhooks, type WebhookOptions, webhookRoutes } from "@mountkit/core/webhooks";
import { specRuntime } from "#runtime/spec";
import { createEntriesApi, type EntriesApi } from "./api.js";
import { principalOf, requireAuth } from "./auth/middleware.js";
import type { TokenVerifier } from "./auth/verifier.js";
import type { AnyEntryTypes } from "./domain/entries.js";
import { ENTRY_EVENTS, entryEvents, ownerScope } from "./domain/events.js";
import { entriesError, errorSchema } from "./errors.js";
import { apisPrepare } from "./inventory/apis-hook.js";
import { type ValidateRequest, validationAddress, validationClient } from "./openapi/client.js";
import type { SpecPool, SpecPoolOptions } from "./openapi/pool-types.js";
import { sameOriginFetcher } from "./openapi/same-origin.js";
import type { ValidationOutcome } from "./openapi/validate.js";
import { dataRoutes } from "./routes/data.js";
import { diffRoutes } from "./routes/diff.js";
import { inventoryRoutes } from "./routes/inventory.js";
import { revisionRoutes } from "./routes/revisions.js";
import { typeRoutes } from "./routes/types.js";
import { validateRoutes } from "./routes/validate.js";
import { inMemoryEntriesStore } from "./store/in-memory.js";
import type { EntriesStore } from "./store/types.js";
import {
  type AnyEntryTypeDefinitions,
  builtinTypes,
  type EntryTypeDefinition,
  type EntryTypesOf,
  type TypeRegistry,
  typeRegistry,
} from "./types/registry.js";

export interface EntriesServiceOptions<T extends AnyEntryTypeDefinitions = readonly EntryTypeDefinition[]> {
  /** Verifies bearer tokens: `jwtVerifier`, `firebaseVerifier`, `devAuth().verifier`, or the host's own. */
  auth: TokenVerifier;
  store?: EntriesStore;
  /**
   * Types registered besides `apis` and `countries`. Written inline (or through `entryType`), their ids
   * and schemas type `service.api`: an unregistered id does not compile and customData is the schema's type.
   */
  types?: T;
  /** The validation address used before an `apis` entry is saved. */
  validator?: {
    /** Base URL of a remote kit (or a getter, for addresses known once servers listen); unset: validate in process. */
    url?: string | (() => string | undefined);
    /** This server's base URL; when `url` points here the call stays in process. */
    selfUrl?: () => string | undefined;
    timeoutMs?: number;
  };
  /** Policy for fetching `specUrl` and same-origin `$ref`s. */
  specFetch?: SafeFetchOptions;
  /** `apis` specs fetched and catalogued at once (each may hold tens of MB while processed); default 4. */
  maxConcurrentSpecs?: number;
  /**
   * The worker pool that parses, validates and catalogues specs off the event loop: threads, queue, time, memory, limits.
   * Node only: on fetch runtimes (Workers) there is no in-process validator, so set `validator.url` to a kit on Node.
   */
  validation?: SpecPoolOptions;
  /**
   * Outbound events (`entry.created`, `entry.updated`, `entry.deleted`) to the subscriptions each owner manages at
   * `/api/v1/webhooks`: receivers' address policy, time cap, retry schedule, concurrency (docs/webhooks.md).
   */
  webhooks?: WebhookOptions;
  /** Body limit of entry routes; default 1 MiB. */
  bodyLimit?: number;
  /** Body limit of the validation address (specs run to megabytes); default 25 MiB. */
  validateBodyLimit?: number;
  /**
   * Serves the API catalogue page at `/api/dev/catalogue/` when set: the bundle's text or a getter
   * (`entriesCatalogueScript` from `@mountkit/entries-catalogue`). Off by default.
   */
  catalogueScript?: string | (() => string | Promise<string>);
  basePath?: string;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
}

export type { EntriesApi } from "./api.js";

export interface EntriesService<M extends object = AnyEntryTypes> extends Service {
  /** Typed by the types given at creation; a type registered later through `types.register` needs `api as EntriesApi`. */
  api: EntriesApi<M>;
  types: TypeRegistry;
  store: EntriesStore;
}

export const ENTRIES_MOUNTS = ["/api/v1/types", "/api/v1/webhooks", "/api/dev/validate-openapi", "/api/dev/diff-openapi"];
/** Where the API catalogue page is served when the host opts in (`catalogueScript`); beside the validation address. */
export const ENTRIES_CATALOGUE_PATH = "/api/dev/catalogue/";

/** The validation address's client: in process on the spec pool, or the remote `validator.url`. */
function validation(o: EntriesServiceOptions<AnyEntryTypeDefinitions>, basePath: string, pool: SpecPool, fetchOptions: SafeFetchOptions) {
  const local = async (req: ValidateRequest): Promise<ValidationOutcome> =>
    pool.validate(req.body, {
      baseUrl: req.baseUrl,
      signal: req.signal,
      fetchDocument: req.baseUrl ? sameOriginFetcher({ ...fetchOptions, signal: req.signal }) : undefined,
      ...(req.lint === false ? { lint: false as const } : {}),
    });
  const client = validationClient({
    local,
    url: o.validator?.url,
    timeoutMs: o.validator?.timeoutMs,
    selfUrl: () => {
      const self = o.validator?.selfUrl?.();
      return self ? validationAddress(`${self.replace(/\/+$/, "")}${basePath}`) : undefined;
    },
  });
  return { local, client };
}

export function createEntriesService<const T extends AnyEntryTypeDefinitions = []>(
  o: EntriesServiceOptions<T>,
): EntriesService<EntryTypesOf<T>> {
  const basePath = (o.basePath ?? "").replace(/\/+$/, "");
  const store = o.store ?? inMemoryEntriesStore();
  const clock = o.clock ?? systemClock;
  const ids = o.ids ?? randomIds;
  const fetchOptions: SafeFetchOptions = o.specFetch ?? {};
  const pool = specRuntime.specPool(o.validation);
  const diffs = specRuntime.diffPool(o.validation);
  const { local, client } = validation(o, basePath, pool, fetchOptions);
  const types = typeRegistry([
    builtinTypes.apis(apisPrepare({ client, fetch: fetchOptions, local, maxConcurrent: o.maxConcurrentSpecs })),
    builtinTypes.countries(),
    ...(o.types ?? []),
  ]);
  const hooks = startWebhooks({
    service: "entries",
    store: store.webhooks,
    jobs: store.jobs,
    clock,
    logger: o.logger,
    options: o.webhooks,
  });
  const events = entryEvents(hooks, clock);
  const api = createEntriesApi({ store, types, clock, ids, basePath, fetch: fetchOptions, pool, diffs, events });

  // Runs before auth and body parsing: an unknown type is a 404 whatever the request carries.
  const knownType: Middleware = documented(
    async (ctx, next) => {
      const typeId = (ctx.params as Record<string, string>).typeId;
      if (typeId === undefined || !types.get(typeId)) throw entriesError("unknown_type", { message: `unknown type ${typeId}` });
      return next();
    },
    { responses: { 404: { description: "Unknown type", schema: errorSchema } } },
  );
  const auth = requireAuth(o.auth);

  const service = defineService({
    name: "entries",
    title: "mountkit entries",
    version: "1",
    description: "Typed-entry catalogue: submit, list and catalogue entries of registered types.",
    mounts: o.catalogueScript === undefined ? ENTRIES_MOUNTS : [...ENTRIES_MOUNTS, ENTRIES_CATALOGUE_PATH.slice(0, -1)],
    basePath,
    bodyLimit: o.bodyLimit,
    clock,
    ids,
    logger: o.logger,
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
    routes: [
      ...typeRoutes({ api, types, knownType }),
      ...dataRoutes({ api, auth, knownType, basePath }),
      ...revisionRoutes({ api, auth, knownType }),
      ...inventoryRoutes({ api, knownType }),
      ...webhookRoutes({
        webhooks: hooks,
        path: "/api/v1/webhooks",
        use: [auth],
        security: ["bearerAuth"],
        scopeOf: (ctx) => ownerScope(principalOf(ctx).sub),
        eventTypes: ENTRY_EVENTS,
      }),
      ...validateRoutes({ api, bodyLimit: o.validateBodyLimit ?? 25 * 1024 * 1024 }),
      // two documents in one body: twice the validation address's limit
      ...diffRoutes({ api, knownType, bodyLimit: 2 * (o.validateBodyLimit ?? 25 * 1024 * 1024) }),
      ...(o.catalogueScript === undefined
        ? []
        : pageRoutes({ path: ENTRIES_CATALOGUE_PATH, title: "API catalogue", element: "mountkit-catalogue", script: o.catalogueScript })),
    ],
    dispose: async () => {
      await hooks.stop();
      await Promise.all([pool.destroy(), diffs.destroy()]);
      await store.close?.();
    },
  });
  // the domain checks types at run time; the static map only narrows what callers may pass
  return Object.assign(service, { api: api as unknown as EntriesApi<EntryTypesOf<T>>, types, store });
}
