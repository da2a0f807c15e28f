// Erasure, its audit, and export/import routes (docs/memory.md#erasure, docs/memory.md#export-and-import):
// DELETE /v1/episodes/:id, DELETE /v1/entities/:id (a subject), GET /v1/erasures, GET /v1/export (JSON Lines,
// streamed), POST /v1/import (JSON Lines, written to the store batch by batch).
import { chunks, json, route } from "@mountkit/core";
import * as z from "zod";
import { brainOf } from "../auth/middleware.js";
import { errors, type RouteDeps, SECURITY } from "./common.js";
import { IdParams } from "./schemas.js";

const Ids = z.array(z.string());

export const ErasureSchema = z.object({
  erasure: z.string().describe("Id of the erasure's audit record (GET /v1/erasures)"),
  removed: z.object({ episodes: Ids, edges: Ids, entities: Ids }),
  uncited: Ids.describe(
    "Edges kept that lost a citation of what went (their episode moved to another supporting one, or their invalidation reason)",
  ),
  playbooks: z.object({ updated: Ids, deleted: Ids }),
});

const Counts = z.object({ episodes: z.number().int(), edges: z.number().int(), entities: z.number().int(), playbooks: z.number().int() });

export const ErasureRecordSchema = z.object({
  id: z.string(),
  kind: z.enum(["episode", "subject", "brain"]),
  target: z.string(),
  at: z.iso.datetime(),
  counts: Counts,
});

const ImportCounts = z.object({ counts: Counts });

/** Content types an import accepts: JSON Lines under its usual names. */
export const JSONL_TYPES = ["application/x-ndjson", "application/jsonl", "application/json-lines", "text/plain"];

export const erasureRoutes = ({ api, guard }: RouteDeps, options: { importBodyLimit?: number } = {}) => [
  route({
    method: "DELETE",
    path: "/v1/episodes/:id",
    operationId: "forgetEpisode",
    summary: "Erase an episode: it, its index text, and every edge and entity only it supports; answers what was removed",
    tags: ["erasure"],
    security: SECURITY,
    use: guard,
    params: IdParams,
    responses: { 200: { description: "What the erasure removed", schema: ErasureSchema }, ...errors(404) },
    handler: async (ctx) => json(200, await api.forgetEpisode(brainOf(ctx.state), ctx.params.id)),
  }),
  route({
    method: "DELETE",
    path: "/v1/entities/:id",
    operationId: "forgetSubject",
    summary: "Erase a subject: the entity, every episode naming it (whole), every edge naming it; answers what was removed",
    tags: ["erasure"],
    security: SECURITY,
    use: guard,
    params: IdParams,
    responses: { 200: { description: "What the erasure removed", schema: ErasureSchema }, ...errors(404) },
    handler: async (ctx) => json(200, await api.forgetSubject(brainOf(ctx.state), ctx.params.id)),
  }),
  route({
    method: "GET",
    path: "/v1/erasures",
    operationId: "listErasures",
    summary: "The brain's erasure audit, oldest first: what was asked and how much went, no erased content",
    tags: ["erasure"],
    security: SECURITY,
    use: guard,
    responses: { 200: { description: "Audit records", schema: z.object({ items: z.array(ErasureRecordSchema) }) }, ...errors() },
    handler: async (ctx) => json(200, await api.listErasures(brainOf(ctx.state))),
  }),
  route({
    method: "GET",
    path: "/v1/export",
    operationId: "exportBrain",
    summary: "The brain as JSON Lines (header, episodes, entities, edges, playbooks, end), streamed page by page",
    tags: ["export"],
    security: SECURITY,
    use: guard,
    responses: { 200: { description: "One JSON object per line", contentType: "application/x-ndjson" }, ...errors() },
    handler: async (ctx) => chunks(200, api.exportBrain(brainOf(ctx.state)), "application/x-ndjson; charset=utf-8"),
  }),
  route({
    method: "POST",
    path: "/v1/import",
    operationId: "importBrain",
    summary: "Load an export into this brain, which must hold no records; written to the store in batches",
    tags: ["export"],
    security: SECURITY,
    use: guard,
    // read as it arrives, line by line, batch by batch: memory stays bounded whatever the body's size
    bodyMode: "stream",
    accepts: JSONL_TYPES,
    bodyLimit: options.importBodyLimit ?? 256 * 1024 * 1024,
    responses: { 200: { description: "Records written per kind", schema: ImportCounts }, ...errors(400, 408, 409, 413, 415) },
    handler: async (ctx) => json(200, await api.importBrain(brainOf(ctx.state), ctx.bodyStream ?? [])),
  }),
];
