// One brain's memory as an MCP server (the official SDK's McpServer): the shared tool list as MCP tools, and
// each playbook as a Markdown resource `memory://playbooks/{slug}`. Transport-free: stdio and HTTP connect it.
import { isKitError, type Logger } from "@mountkit/core";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { MemoryApi } from "../api.js";
import { MEMORY_TOOLS } from "../tools/definitions.js";

export interface MemoryMcpServerOptions {
  api: MemoryApi;
  /** The brain every tool reads and writes: the API key's over HTTP, `--brain` over stdio. */
  brainId: string;
  /** Server name and version announced at initialisation; default `mountkit-memory` and the package's. */
  name?: string;
  version?: string;
  /** Where a tool's unexpected failure is logged (the agent reads only `internal`). */
  logger?: Logger;
}

export const PLAYBOOK_URI = "memory://playbooks/{slug}";
const MCP_SERVER_VERSION = "0.1.0";

/** A tool's failure as the agent reads it: the service's error code, message and details (never a stack). */
export function toolError(err: unknown): CallToolResult {
  const body =
    isKitError(err) && err.status < 500
      ? { error: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) }
      : { error: "internal", message: "the memory service failed; see its logs" };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

export function createMemoryMcpServer(options: MemoryMcpServerOptions): McpServer {
  const { api, brainId } = options;
  const server = new McpServer(
    { name: options.name ?? "mountkit-memory", version: options.version ?? MCP_SERVER_VERSION },
    {
      instructions:
        "Long-term memory with dates. `remember` what the user tells you; `recall` before answering (with `asOf` for a past date); " +
        "`invalidate_fact` when the user says something stopped being true.",
    },
  );
  for (const tool of MEMORY_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { readOnlyHint: tool.readOnly, destructiveHint: tool.destructive, openWorldHint: false },
      },
      async (input: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          const result = await tool.run(api, brainId, input as never);
          return { content: [{ type: "text", text: JSON.stringify(result) }] };
        } catch (err) {
          if (!isKitError(err) || err.status >= 500) options.logger?.error("memory MCP tool failed", { tool: tool.name, err });
          return toolError(err);
        }
      },
    );
  }
  server.registerResource(
    "playbook",
    new ResourceTemplate(PLAYBOOK_URI, {
      list: async () => {
        const page = await api.listPlaybooks(brainId, { limit: 100 });
        return {
          resources: page.items.map((p) => ({
            uri: `memory://playbooks/${p.slug}`,
            name: p.slug,
            title: p.title,
            mimeType: "text/markdown",
          })),
        };
      },
    }),
    { title: "Playbook", description: "A playbook of this brain as Markdown", mimeType: "text/markdown" },
    async (uri, variables) => {
      const slug = decodeURIComponent(String(variables.slug));
      const p = await api.getPlaybook(brainId, slug);
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: p.content }] };
    },
  );
  return server;
}
