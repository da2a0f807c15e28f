// Wire schemas of the entry routes (zod): the core turns their failures into 400 with every failing path.
import { ErrorBodySchema } from "@mountkit/core";
import * as z from "zod";

export const LIMITS = { name: 200, description: 10_000, tags: 32, tag: 64, listMax: 100, query: 200, operationsMax: 1000 } as const;

// kept as submitted (docs/entries.md#submitting-an-entry), so a repeated tag is refused rather than silently merged
const tags = z
  .array(z.string().min(1).max(LIMITS.tag))
  .max(LIMITS.tags)
  .refine((t) => new Set(t).size === t.length, { message: "tags must not repeat" })
  .meta({ uniqueItems: true });
const customData = z.record(z.string(), z.unknown());

export const entryInput = z.object({
  name: z.string().min(1).max(LIMITS.name),
  description: z.string().min(1).max(LIMITS.description),
  customData,
  tags: tags.optional(),
});

export const entryPatch = z
  .object({
    name: z.string().min(1).max(LIMITS.name).optional(),
    description: z.string().min(1).max(LIMITS.description).optional(),
    customData: customData.optional(),
    tags: tags.optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "give at least one of name, description, customData, tags" });

export const entry = z.object({
  id: z.string(),
  typeId: z.string(),
  ownerId: z.string(),
  name: z.string(),
  description: z.string(),
  customData: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()).describe("The tags as submitted"),
  derivedTags: z.array(z.string()).describe("The tags the catalogue derived (`api`, `openapi`, `v<version>` for `apis`)"),
  dateCreated: z.number().int(),
  dateModified: z.number().int(),
});

/** One kept state of an entry (docs/entries.md#revisions-and-versions). */
export const revision = z.object({
  typeId: z.string(),
  entryId: z.string(),
  revision: z.number().int().min(1),
  authorId: z.string().describe("`sub` of who made the change"),
  date: z.number().int().describe("The entry's `dateModified` after the change (epoch ms)"),
  name: z.string(),
  description: z.string(),
  customData: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()).describe("The entry's tags after the change"),
  derivedTags: z.array(z.string()).describe("The tags the type's catalogue step derived, apart from `tags`"),
  restoredFrom: z.number().int().nullable().describe("The revision this change restored"),
});

export const typeParams = z.object({ typeId: z.string() });
export const entryParams = z.object({ typeId: z.string(), id: z.string().min(1).max(200) });
export const revisionParams = entryParams.extend({ revision: z.string().regex(/^[1-9][0-9]{0,14}$/, "a revision number from 1") });
export const revisionsQuery = z.object({
  cursor: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(LIMITS.listMax).optional(),
});

const limit = (max: number) => z.coerce.number().int().min(1).max(max).optional();

export const listQuery = z.object({
  cursor: z.string().max(500).optional(),
  limit: limit(LIMITS.listMax),
  tag: z.string().min(1).max(LIMITS.tag).optional(),
  ownerId: z.string().min(1).max(200).optional(),
  q: z
    .string()
    .min(1)
    .max(LIMITS.query)
    .optional()
    .describe("Keeps entries whose name or description contains this text (ASCII letters match either case)."),
});

export const pageQuery = z.object({ cursor: z.string().max(500).optional(), limit: limit(LIMITS.operationsMax) });

export const issue = z.object({ path: z.string(), message: z.string() });
/** 422: `details` lists every failing path. */
export const validationErrorBody = ErrorBodySchema.extend({ details: z.array(issue) });
/** 400: the same list when a field fails its schema or the body is not JSON; absent for a body refused as a whole (bad UTF-8, too deep). */
export const badRequestBody = ErrorBodySchema.extend({ details: z.array(issue).optional() });
