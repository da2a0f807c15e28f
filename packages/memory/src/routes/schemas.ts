// Wire schemas shared by the routes: request validation and the OpenAPI document.
import { ErrorBodySchema } from "@mountkit/core";
import * as z from "zod";
import { INSTANT_FORMS, parseInstant } from "../domain/wire.js";

export const MAX_CONTENT = 100_000;
export const MAX_METADATA_BYTES = 16_384;
/** Levels of objects/arrays in metadata, the metadata object itself being level 1. */
export const MAX_METADATA_DEPTH = 32;

export const IdParams = z.object({ id: z.string().min(1).max(128) });
export const SlugParams = z.object({ slug: z.string().min(1).max(64) });

export const PageQuery = z.object({
  cursor: z.string().max(400).optional().describe("Opaque cursor from the `next` field of the previous page"),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Page size, 1-100 (default 20)"),
});

/** A point in time as the wire gives it: `YYYY-MM-DD` (start or end of that UTC day) or ISO-8601, to epoch ms. */
export const instant = (endOfDay: boolean) =>
  z
    .string()
    .max(64)
    .refine((s) => parseInstant(s, { endOfDay }) !== null, { message: INSTANT_FORMS })
    .transform((s) => parseInstant(s, { endOfDay })!);

/** True when `value` nests objects/arrays deeper than `limit` levels; walks with its own stack, so it cannot overflow. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<{ v: unknown; level: number }> = [{ v: value, level: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.v === null || typeof next.v !== "object") continue;
    if (next.level > limit) return true;
    for (const child of Object.values(next.v)) pending.push({ v: child, level: next.level + 1 });
  }
  return false;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

// A custom schema rather than z.record: zod rebuilds records key by key and drops a `__proto__` key, which
// JSON.parse delivers as an ordinary own property; this passes the parsed object through as sent.
const Metadata = z
  .custom<Record<string, unknown>>(isObject, { message: "metadata must be a JSON object" })
  .superRefine((m, ctx) => {
    // depth first: JSON.stringify recurses and throws RangeError on deep values
    if (nestedDeeperThan(m, MAX_METADATA_DEPTH))
      ctx.addIssue({ code: "custom", message: `metadata is nested deeper than ${MAX_METADATA_DEPTH} levels` });
    else if (JSON.stringify(m).length > MAX_METADATA_BYTES)
      ctx.addIssue({ code: "custom", message: `metadata is larger than ${MAX_METADATA_BYTES} bytes` });
  })
  .meta({
    type: "object",
    additionalProperties: {},
    description:
      `Free-form JSON object, at most ${MAX_METADATA_BYTES} bytes serialised and ${MAX_METADATA_DEPTH} levels deep, kept as sent. ` +
      "A `playbook` value that is a slug (lower-case letters, digits and '-', up to 64) adds the episode to that playbook; " +
      "any other value is kept but feeds no playbook.",
  });

/** A scope id (userId, agentId, sessionId): 1-128 characters, no control characters. */
const ScopeId = z
  .string()
  .min(1)
  .max(128)
  .refine((v) => ![...v].some((c) => c < " " || c === "\u007f"), { message: "must hold no control characters" });

/** The three scope fields of a body or query, each optional (docs/memory.md#scopes-and-filters). */
export const ScopeFields = {
  userId: ScopeId.optional().describe("Scope: the user the record belongs to"),
  agentId: ScopeId.optional().describe("Scope: the agent the record belongs to"),
  sessionId: ScopeId.optional().describe("Scope: the session (conversation) the record came from"),
};

export const CreateEpisodeBody = z.object({
  content: z
    .string()
    // `abort`: an empty string fails the blank check below too, and the answer names it once
    .min(1, { message: "content must not be empty", abort: true })
    .max(MAX_CONTENT, { message: `content is longer than ${MAX_CONTENT} characters` })
    .refine((s) => s.trim().length > 0, { message: "content must not be empty" }),
  metadata: Metadata.optional(),
  occurredAt: instant(false)
    .optional()
    .describe(
      "When the content happened: YYYY-MM-DD or ISO-8601. Default: `metadata.occurredAt` when present (the same forms; anything else answers 400), else now",
    ),
  ...ScopeFields,
});

/** An `Idempotency-Key` value (header or batch item field): 1-255 printable ASCII characters. */
export const IdempotencyKeyValue = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/, { message: "must be 1-255 printable ASCII characters" });

/** An input schema as the OpenAPI document shows it, for a value the handler validates itself. */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** One item of POST /v1/episodes/batch, validated on its own (a bad item is answered, the others stored). */
export const BatchItemBody = CreateEpisodeBody.extend({
  idempotencyKey: IdempotencyKeyValue.optional().describe(
    "The item's idempotency key (as the `Idempotency-Key` header of POST /v1/episodes): the same key again answers the first episode",
  ),
});

export const MAX_BATCH = 100;

export const BatchBody = z.object({
  episodes: z
    .array(
      // each item is checked by BatchItemBody in the handler, so a bad item fails alone: the body accepts any item
      z
        .custom<unknown>(() => true)
        .meta({ ...jsonSchemaOf(BatchItemBody), description: "An episode, as the body of POST /v1/episodes" }),
    )
    .min(1)
    .max(MAX_BATCH)
    .describe(`1-${MAX_BATCH} episodes, stored in order; each answered on its own`),
});

const MetadataFilterValue = z.union([
  z
    .string()
    .max(1000)
    .refine((v) => !v.includes("\u0000"), { message: "must hold no NUL" }),
  z.number(),
  z.boolean(),
  z.null(),
]);

/** Metadata equality: every key present in the episode's metadata with exactly this JSON scalar. */
export const MetadataFilter = z
  .record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { message: "keys are 1-64 letters, digits, '_' or '-'" }), MetadataFilterValue)
  .refine((m) => Object.keys(m).length <= 10, { message: "at most 10 keys" });

/** The filters recall and the lists share (docs/memory.md#scopes-and-filters), as body fields. */
export const FilterFields = {
  ...ScopeFields,
  relation: z
    .union([z.string().min(1).max(64), z.array(z.string().min(1).max(64)).min(1).max(20)])
    .optional()
    .describe("Only facts of this relation (or one of these)"),
  entityId: z.string().min(1).max(128).optional().describe("Only facts touching this entity"),
  validFrom: instant(false)
    .optional()
    .describe("Only facts whose tValid is at or after this: YYYY-MM-DD (start of that UTC day) or ISO-8601"),
  validTo: instant(true).optional().describe("Only facts whose tValid is at or before this: YYYY-MM-DD (end of that UTC day) or ISO-8601"),
  metadata: MetadataFilter.optional().describe("Only episodes (and facts of episodes) whose metadata has each key with exactly this value"),
};

/** The same filters as query parameters: `relation` comma-separated, `metadata` a JSON object. */
export const FilterQueryFields = {
  ...ScopeFields,
  relation: z
    .string()
    .min(1)
    .max(400)
    .optional()
    .describe("Only facts of this relation; several comma-separated")
    .transform((s) => (s === undefined ? undefined : s.split(",").filter(Boolean))),
  validFrom: FilterFields.validFrom,
  validTo: FilterFields.validTo,
  metadata: z
    .string()
    .max(2000)
    .optional()
    .describe(
      'Only episodes (and facts of episodes) whose metadata has each key with exactly this value: a JSON object, e.g. {"source":"chat"}',
    )
    .transform((s, ctx) => {
      if (s === undefined) return undefined;
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "metadata must be a JSON object" });
        return z.NEVER;
      }
    })
    .pipe(MetadataFilter.optional()),
};

export const RecallBody = z.object({
  query: z
    .string()
    .min(1, { message: "query must not be empty", abort: true })
    .max(2000)
    .refine((s) => s.trim().length > 0, { message: "query must not be empty" }),
  asOf: instant(true)
    .optional()
    .describe("Valid time: what was true then. YYYY-MM-DD (end of that UTC day) or an ISO-8601 timestamp; default: now"),
  knownAt: instant(true)
    .optional()
    .describe("Transaction time: what the memory believed then. YYYY-MM-DD (end of that UTC day) or an ISO-8601 timestamp; default: now"),
  limit: z.number().int().min(1).max(100).default(10),
  ...FilterFields,
});

export const InvalidateBody = z
  .object({ reason: z.string().max(500).optional() })
  .strict()
  .optional();

const Iso = z.iso.datetime().describe("ISO-8601 timestamp, UTC (`Z`)");
const IsoOrNull = Iso.nullable();
/** A record's scope: null when unscoped on that axis. */
const ScopeJson = {
  userId: z.string().nullable(),
  agentId: z.string().nullable(),
  sessionId: z.string().nullable(),
};

export const EdgeSchema = z.object({
  id: z.string(),
  source: z.string(),
  target: z.string(),
  relation: z.string(),
  fact: z.string(),
  tValid: IsoOrNull,
  tInvalid: IsoOrNull,
  tIngested: Iso,
  tExpired: IsoOrNull,
  episodeId: z.string(),
  invalidationReason: z.string().nullable(),
  invalidatedBy: z.string().nullable(),
  ...ScopeJson,
  score: z.number().optional(),
});

export const EpisodeSchema = z.object({
  id: z.string(),
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  occurredAt: Iso,
  createdAt: Iso,
  status: z.enum(["queued", "processing", "done", "failed"]),
  error: z.string().nullable(),
  entityIds: z.array(z.string()),
  edgeIds: z.array(z.string()),
  processedAt: IsoOrNull,
  ...ScopeJson,
});

export const EntitySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["person", "organization", "place", "product", "date", "other"]),
  aliases: z.array(z.string()),
  createdAt: Iso,
  updatedAt: Iso,
});

export const RecallSchema = z.object({
  asOf: Iso,
  knownAt: Iso,
  context: z.string(),
  edges: z.array(EdgeSchema),
  entities: z.array(z.object({ id: z.string(), name: z.string(), kind: z.string() })),
  episodes: z.array(
    z.object({
      id: z.string(),
      content: z.string(),
      metadata: z.record(z.string(), z.unknown()),
      occurredAt: Iso,
      createdAt: Iso,
      ...ScopeJson,
    }),
  ),
});

export const PlaybookSchema = z.object({
  slug: z.string(),
  title: z.string(),
  content: z
    .string()
    .describe(
      "Markdown: the currently valid facts, each citing its edge; the statements that yielded no fact, each citing its episode; facts no longer valid",
    ),
  edges: z.array(z.string()),
  episodes: z.array(z.string()),
  updatedAt: Iso,
});

/** One item's answer in POST /v1/episodes/batch, in the order sent. */
export const BatchResultSchema = z.object({
  items: z.array(
    z.object({
      index: z.number().int().describe("Position of the item in `episodes`"),
      status: z
        .enum(["accepted", "duplicate", "error"])
        .describe(
          "`accepted`: stored, extraction queued; `duplicate`: its idempotency key was used before, the first episode answered; `error`: not stored",
        ),
      code: z.number().int().describe("The status POST /v1/episodes would have answered: 202, or the error's 4xx"),
      id: z.string().optional().describe("The episode's id (accepted and duplicate)"),
      episode: EpisodeSchema.optional().describe("The episode as first accepted (accepted and duplicate)"),
      error: ErrorBodySchema.optional().describe("The error body POST /v1/episodes would have answered (error)"),
    }),
  ),
});

export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next: z.string().nullable() });
