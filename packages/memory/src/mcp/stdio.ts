// `mountkit-memory mcp`: one brain's memory as an MCP server on stdin/stdout (the official SDK's stdio transport),
// with the memory service (and its extraction worker) in the same process. stdout carries protocol messages only:
// every log line goes to stderr.
import { consoleLogger, type Logger, type LogLevel } from "@mountkit/core";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMemoryService, type MemoryServiceOptions } from "../service.js";
import type { MemoryStore } from "../store/types.js";
import { createMemoryMcpServer } from "./server.js";

export interface McpStdioOptions {
  store: MemoryStore;
  brainId: string;
  /** Default: `MEMORY_LOG_LEVEL` levels to stderr (`consoleLogger`, whose sink is stderr). */
  logger?: Logger;
  /** Further service options (extractor, embedder, relations, worker); `store`, `logger` come from above. */
  service?: Omit<MemoryServiceOptions, "store" | "logger">;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** Serves until stdin ends (the client went away), then disposes the service. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<void> {
  const level = (process.env.MEMORY_LOG_LEVEL as LogLevel | undefined) ?? "warn";
  const logger = options.logger ?? consoleLogger(level);
  const service = createMemoryService({ ...options.service, store: options.store, logger });
  const server = createMemoryMcpServer({ api: service.api, brainId: options.brainId, logger });
  const transport = new StdioServerTransport(options.stdin as never, options.stdout as never);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const input = options.stdin ?? process.stdin;
  input.once("end", () => void server.close());
  await server.connect(transport);
  logger.info(`memory MCP server on stdio for brain ${options.brainId}`);
  try {
    await closed;
  } finally {
    await service.dispose();
  }
}
