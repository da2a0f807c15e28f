// Memory-for-agents host: @mountkit/memory with its optional peers installed by the host, @modelcontextprotocol/sdk
// (the /mcp subpath, /v1/mcp over HTTP and the `mountkit-memory mcp` bin on stdio) and ai (the /ai subpath).

import assert from "node:assert/strict";
import { createMemoryService } from "@mountkit/memory";
import { memoryTools } from "@mountkit/memory/ai";
import { MEMORY_TOOLS, mcpHttp } from "@mountkit/memory/mcp";
import { openMemoryStorage } from "@mountkit/sql/memory";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { requireEach } from "./probe.js";

const dataDir = process.env.DATA_DIR ?? "./data";
const storage = await openMemoryStorage({ dataDir });
const memory = createMemoryService({ store: storage.memory, mcp: mcpHttp() });
const { key } = await memory.keys.create({ brainId: "agents" });

// Streamable HTTP, through the service's fetch handler
const http = new Client({ name: "host", version: "1.0.0" });
await http.connect(
  new StreamableHTTPClientTransport(new URL("http://host.invalid/v1/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => memory.fetch(new Request(url, init)),
  }),
);
const names = (await http.listTools()).tools.map((t) => t.name);
assert.deepEqual(
  names,
  MEMORY_TOOLS.map((t) => t.name),
);
const stored = (await http.callTool({ name: "remember", arguments: { content: "Ada joined Acme in 2024." } })) as {
  content: Array<{ text: string }>;
};
const episode = JSON.parse(stored.content[0]!.text) as { id: string; status: string };
assert.equal(episode.status, "queued");
await http.close();

// the AI SDK's tools, in process
const tools = memoryTools(memory.api, { brainId: "agents" });
assert.deepEqual(Object.keys(tools), names);
const read = (await tools.get_episode!.execute!({ id: episode.id }, { toolCallId: "1", messages: [], context: {} })) as { id: string };
assert.equal(read.id, episode.id);

await memory.dispose();
await storage.close();

// the bin from the tarball on stdio, on the same SQLite file (DATA_DIR, @mountkit/sql/memory by default)
const stdio = new Client({ name: "host", version: "1.0.0" });
await stdio.connect(
  new StdioClientTransport({
    command: "node_modules/.bin/mountkit-memory",
    args: ["mcp", "--brain", "agents"],
    env: { ...(process.env as Record<string, string>), DATA_DIR: dataDir },
    stderr: "inherit",
  }),
);
const again = (await stdio.callTool({ name: "get_episode", arguments: { id: episode.id } })) as { content: Array<{ text: string }> };
assert.equal((JSON.parse(again.content[0]!.text) as { content: string }).content, "Ada joined Acme in 2024.");
await stdio.close();

requireEach(["@mountkit/memory", "@mountkit/memory/mcp", "@mountkit/memory/ai"]);
console.log(JSON.stringify({ host: "memory-agents", ok: true }));
