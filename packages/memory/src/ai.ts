// @mountkit/memory/ai: one brain's memory as Vercel AI SDK tools (`ai` is an optional peer dependency: only
// hosts that import this subpath need it). The same tool list as the MCP server, called in process:
// `generateText({ model, tools: memoryTools(service.api, { brainId }), ... })`.
import { type Tool, tool } from "ai";
import * as z from "zod";
import type { MemoryApi } from "./api.js";
import { MEMORY_TOOLS } from "./tools/definitions.js";

export interface MemoryToolsOptions {
  /** The brain every tool reads and writes. */
  brainId: string;
  /** Only these tools (by name: remember, get_episode, recall, get_entity, invalidate_fact, forget_episode, read_playbook, list_playbooks); default all. */
  only?: readonly string[];
}

/**
 * The SDK's `tool()` definitions, keyed by tool name. A failing call throws the service's KitError (its
 * `code`, `status`, `details`), which the SDK reports to the model as a tool error.
 */
export function memoryTools(api: MemoryApi, options: MemoryToolsOptions): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  for (const def of MEMORY_TOOLS) {
    if (options.only && !options.only.includes(def.name)) continue;
    tools[def.name] = tool({
      title: def.title,
      description: def.description,
      inputSchema: z.object(def.input),
      execute: (input: Record<string, unknown>) => def.run(api, options.brainId, input as never),
    });
  }
  return tools;
}
