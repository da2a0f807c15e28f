// `/api/v1/types/:typeId/data/:id/inventory`: what cataloguing an entry's spec found, operations paginated.
import { json, type Middleware, route } from "@mountkit/core";
import * as z from "zod";
import type { EntriesApi } from "../api.js";
import { errorSchema } from "../errors.js";
import { entryParams, pageQuery } from "./schemas.js";

const operation = z.object({ method: z.string(), path: z.string(), operationId: z.string().optional(), summary: z.string().optional() });

export function inventoryRoutes(o: { api: EntriesApi; knownType: Middleware }) {
  return [
    route({
      method: "GET",
      path: "/api/v1/types/:typeId/data/:id/inventory",
      operationId: "getInventory",
      summary: "The catalogued API of an entry",
      tags: ["entries"],
      params: entryParams,
      query: pageQuery,
      use: [o.knownType],
      responses: {
        200: {
          description: "Inventory",
          schema: z.object({
            title: z.string(),
            specVersion: z.string(),
            version: z.string(),
            endpoints: z.number().int(),
            paths: z.number().int(),
            tags: z.array(z.string()),
            operations: z.array(operation),
            next: z.string().nullable(),
          }),
        },
        404: { description: "No such entry or no inventory", schema: errorSchema },
      },
      async handler(ctx) {
        return json(200, await o.api.inventory({ ...ctx.params, ...ctx.query }));
      },
    }),
  ];
}
