// @mountkit/memory/mcp: the memory service as an MCP server on the official SDK (an optional peer dependency,
// so only hosts that import this subpath need @modelcontextprotocol/sdk). `mcpHttp()` is passed to
// `createMemoryService({ mcp })` to serve /v1/mcp. Runs on fetch runtimes too: the stdio server (`mountkit-memory
// mcp`, Node only) stays in the CLI.
export type { MemoryMcpHttp } from "../routes/mcp.js";
export { MCP_PATH } from "../routes/mcp.js";
export { MEMORY_TOOLS, type MemoryToolDefinition } from "../tools/definitions.js";
export { type McpHttpOptions, mcpHttp } from "./http.js";
export { createMemoryMcpServer, type MemoryMcpServerOptions, PLAYBOOK_URI } from "./server.js";
