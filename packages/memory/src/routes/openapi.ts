// GET /openapi.yaml: the OpenAPI 3.1 document derived from the route table, no auth.
import { type OpenApiDocument, route, text, toYamlSliced } from "@mountkit/core";

export const openapiRoutes = (document: (mountPath: string) => OpenApiDocument) => {
  // one YAML text per mount prefix the service is reached under (its `servers` differ)
  const yaml = new Map<string, string>();
  return [
    route({
      method: "GET",
      path: "/openapi.yaml",
      operationId: "getOpenApi",
      summary: "This API's OpenAPI 3.1 description",
      tags: ["meta"],
      security: [],
      responses: { 200: { description: "OpenAPI document", contentType: "application/yaml" } },
      handler: async (ctx) => {
        let out = yaml.get(ctx.mountPath);
        if (out === undefined) {
          // 117 KB of YAML: made in slices, never in one hold of the event loop
          out = await toYamlSliced(document(ctx.mountPath));
          if (yaml.size < 16) yaml.set(ctx.mountPath, out);
        }
        return text(200, out, "application/yaml; charset=utf-8");
      },
    }),
  ];
};
