// `/api/v1/types` and `/api/v1/types/:typeId/openapi.json`: the registry, and each type's own OpenAPI document.
import { json, type Middleware, route } from "@mountkit/core";
import * as z from "zod";
import type { EntriesApi } from "../api.js";
import type { TypeRegistry } from "../types/registry.js";
import { typeParams } from "./schemas.js";

export function typeRoutes(o: { api: EntriesApi; types: TypeRegistry; knownType: Middleware }) {
  return [
    route({
      method: "GET",
      path: "/api/v1/types",
      operationId: "listTypes",
      summary: "Registered entry types",
      tags: ["types"],
      responses: {
        200: {
          description: "Types",
          schema: z.object({
            items: z.array(
              z.object({
                id: z.string(),
                title: z.string(),
                description: z.string().optional(),
                openapi: z
                  .string()
                  .describe("Path of the type's OpenAPI document, mount prefix included")
                  .meta({ format: "uri-reference" }),
              }),
            ),
          }),
        },
      },
      handler(ctx) {
        const items = o.types.list().map((t) => ({
          id: t.id,
          title: t.title,
          ...(t.description ? { description: t.description } : {}),
          openapi: `${ctx.baseUrl}/api/v1/types/${t.id}/openapi.json`,
        }));
        return json(200, { items });
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/types/:typeId/openapi.json",
      operationId: "getTypeOpenApi",
      summary: "OpenAPI 3.1 document of one type",
      tags: ["types"],
      params: typeParams,
      use: [o.knownType],
      responses: { 200: { description: "OpenAPI document" } },
      handler(ctx) {
        // `servers` is where this request found the service: the host's mount prefix and the basePath
        const doc = { ...o.api.typeDocument(ctx.params.typeId), servers: [{ url: ctx.baseUrl || "/" }] };
        return json(200, doc, { "cache-control": "no-cache" });
      },
    }),
  ];
}
