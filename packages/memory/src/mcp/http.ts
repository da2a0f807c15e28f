// The Streamable HTTP side of the memory MCP server, for `createMemoryService({ mcp: mcpHttp() })`: each POST
// to /v1/mcp gets a fresh server on the official SDK's web-standard transport, stateless and answering JSON, so
// it runs alike behind Express, Fastify and fetch runtimes, and any process on the same store can answer.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { MemoryMcpHttp } from "../routes/mcp.js";
import { createMemoryMcpServer, type MemoryMcpServerOptions } from "./server.js";

export type McpHttpOptions = Omit<MemoryMcpServerOptions, "api" | "brainId">;

export function mcpHttp(options: McpHttpOptions = {}): MemoryMcpHttp {
  return {
    async handle({ api, brainId, request, body }) {
      const server = createMemoryMcpServer({ ...options, api, brainId });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request, { parsedBody: body });
      } finally {
        await server.close();
      }
    },
  };
}
