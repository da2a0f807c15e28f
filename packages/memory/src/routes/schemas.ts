// Wire schemas shared by the routes: request validation and the OpenAPI document.
import * as z from "zod";
import { parseInstant } from "../domain/wire.js";

export const MAX_CONTENT = 100_000;
export const MAX_METADATA_BYTES = 16_384;

export const IdParams = z.object({ id: z.string().min(1).max(128) });
export const SlugParams = z.object({ slug: z.string().min(1).max(64) });

export const PageQuery = z.object({
  cursor: z.string().max(400).optional().describe("Opaque cursor from the `next` field of the previous page"),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Page size, 1-100 (default 20)"),
});

const instant = (endOfDay: boolean) =>
  z
    .string()
    .max(64)
    .refine((s) => parseInstant(s, { endOfDay }) !== null, { message: "expected YYYY-MM-DD or an ISO-8601 timestamp with a timezone" })
    .transform((s) => parseInstant(s, { endOfDay })!);

export const CreateEpisodeBody = z.object({
  content: z
    .string()
    .max(MAX_CONTENT, { message: `content is longer than ${MAX_CONTENT} characters` })
    .refine((s) => s.trim().length > 0, { message: "content must not be empty" }),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .refine((m) => m === undefined || JSON.stringify(m).length <= MAX_METADATA_BYTES, {
      message: `metadata is larger than ${MAX_METADATA_BYTES} bytes`,
    })
    .refine((m) => m?.playbook === undefined || (typeof m.playbook === "string" && /^[a-z0-9][a-z0-9-]{0,63}$/.test(m.playbook)), {
      message: "metadata.playbook must be a slug (lower-case letters, digits, '-')",
      path: ["playbook"],
    }),
  occurredAt: instant(false).optional().describe("When the content happened (ISO-8601); default: now"),
});

export const RecallBody = z.object({
  query: z
    .string()
    .max(2000)
    .refine((s) => s.trim().length > 0, { message: "query must not be empty" }),
  asOf: instant(true).optional().describe("YYYY-MM-DD (end of that UTC day) or an ISO-8601 timestamp; default: now"),
  limit: z.number().int().min(1).max(100).default(10),
});

export const InvalidateBody = z
  .object({ reason: z.string().max(500).optional() })
  .strict()
  .optional();

const Iso = z.string().describe("ISO-8601 timestamp");
const IsoOrNull = Iso.nullable();

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
  context: z.string(),
  edges: z.array(EdgeSchema),
  entities: z.array(z.object({ id: z.string(), name: z.string(), kind: z.string() })),
  episodes: z.array(
    z.object({ id: z.string(), content: z.string(), metadata: z.record(z.string(), z.unknown()), occurredAt: Iso, createdAt: Iso }),
  ),
});

export const PlaybookSchema = z.object({
  slug: z.string(),
  title: z.string(),
  content: z.string().describe("Markdown summary of the currently valid facts, each citing its edge"),
  edges: z.array(z.string()),
  episodes: z.array(z.string()),
  updatedAt: Iso,
});

export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next: z.string().nullable() });
