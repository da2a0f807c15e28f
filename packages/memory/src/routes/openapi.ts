// GET /openapi.yaml: the OpenAPI 3.1 document derived from the route table, no auth.
import { type OpenApiDocument, route, text, toYaml } from "@mountkit/core";

export const openapiRoutes = (document: () => OpenApiDocument) => {
  let yaml: string | undefined;
  return [
    route({
      method: "GET",
      path: "/openapi.yaml",
      operationId: "getOpenApi",
      summary: "This API's OpenAPI 3.1 description",
      tags: ["meta"],
      security: [],
      responses: { 200: { description: "OpenAPI document", contentType: "application/yaml" } },
      handler: () => {
        yaml ??= toYaml(document());
        return text(200, yaml, "application/yaml; charset=utf-8");
      },
    }),
  ];
};
