// @mountkit/memory/ai: the memory tools in the Vercel AI SDK's own generateText loop (a mock model that calls
// them, as a real one would), and the root entry and the MCP subpath not loading `ai`.
import { fileURLToPath } from "node:url";
import { createMemoryService, type MemoryService } from "@mountkit/memory";
import { memoryTools } from "@mountkit/memory/ai";
import { generateText } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that calls one tool with `input` (generateText stops after that step by default), then would answer "ok". */
function callingModel(toolName: string, input: unknown) {
  return new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{ type: "tool-call", toolCallId: "call-1", toolName, input: JSON.stringify(input) }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      },
      { content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
    ],
  });
}

async function done(service: MemoryService, brainId: string, id: string) {
  for (let i = 0; i < 500; i++) {
    const e = await service.api.getEpisode(brainId, id);
    if (e.status === "done" || e.status === "failed") return e;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("extraction did not finish");
}

describe("memoryTools (Vercel AI SDK)", () => {
  let service: MemoryService;
  beforeAll(() => {
    service = createMemoryService({ worker: { pollMs: 20 } });
  });
  afterAll(() => service.dispose());

  it("gives the model every tool with a JSON Schema, and `only` narrows them", async () => {
    const model = callingModel("recall", { query: "anything" });
    await generateText({ model, tools: memoryTools(service.api, { brainId: "t" }), prompt: "hi", stopWhen: () => false });
    const offered = model.doGenerateCalls[0]!.tools!.map((t) => t.name);
    expect(offered).toEqual([
      "remember",
      "get_episode",
      "recall",
      "get_entity",
      "invalidate_fact",
      "forget_episode",
      "read_playbook",
      "list_playbooks",
    ]);
    const recall = model.doGenerateCalls[0]!.tools!.find((t) => t.name === "recall") as { inputSchema: any };
    expect(recall.inputSchema.required).toEqual(["query"]);
    expect(Object.keys(memoryTools(service.api, { brainId: "t", only: ["recall", "remember"] }))).toEqual(["remember", "recall"]);
  });

  it("remember then recall as of a past date, through the model's tool calls", async () => {
    const brainId = "ai";
    const tools = memoryTools(service.api, { brainId });
    const stored: string[] = [];
    for (const [content, occurredAt] of [
      ["Chloe Martin lives in Paris.", "2021-01-01"],
      ["Chloe Martin moved to Berlin.", "2023-03-01"],
    ] as const) {
      const r = await generateText({ model: callingModel("remember", { content, occurredAt }), tools, prompt: content });
      const out = r.steps[0]!.toolResults[0]!.output as { id: string; status: string };
      expect(out.status).toBe("queued");
      stored.push(out.id);
    }
    const [paris, berlin] = await Promise.all(stored.map((id) => done(service, brainId, id)));
    const r = await generateText({
      model: callingModel("recall", { query: "Where does Chloe Martin live?", asOf: "2022-06-01" }),
      tools,
      prompt: "Where did Chloe live in mid-2022?",
    });
    const out = r.steps[0]!.toolResults[0]!.output as { edges: Array<{ id: string }> };
    expect(out.edges.map((e) => e.id)).toContain(paris!.edgeIds[0]);
    expect(out.edges.map((e) => e.id)).not.toContain(berlin!.edgeIds[0]);
  });

  it("a failing call reaches the model as a tool error with the service's code", async () => {
    const r = await generateText({
      model: callingModel("get_entity", { id: "nope" }),
      tools: memoryTools(service.api, { brainId: "ai" }),
      prompt: "x",
    });
    const err = r.steps[0]!.content.find((c) => c.type === "tool-error") as { error: { code?: string } } | undefined;
    expect(err?.error.code).toBe("not_found");
  });
});

describe("the optional peers cost an install that does not use them nothing", () => {
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  // every package `entry` loads when it is imported, by name (node_modules/<name>/...): the bundle's graph walked
  // along static imports only, since a dynamic import() runs when its code path does
  async function packagesOf(entry: string): Promise<Set<string>> {
    const r = await build({
      absWorkingDir: root,
      entryPoints: [entry],
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "node",
      conditions: ["mountkit-source"],
      logLevel: "silent",
    });
    const seen = new Set([entry]);
    const queue = [entry];
    const names = new Set<string>();
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
      if (m) names.add(m[1]!);
      for (const imp of r.metafile.inputs[file]?.imports ?? []) {
        if (imp.external || imp.kind === "dynamic-import" || seen.has(imp.path)) continue;
        seen.add(imp.path);
        queue.push(imp.path);
      }
    }
    return names;
  }

  it.each([
    ["the root entry", "packages/memory/src/index.ts", ["ai", "@ai-sdk/provider-utils", "@modelcontextprotocol/sdk"]],
    [
      "the CLI (the MCP SDK imported by its mcp command only)",
      "packages/memory/src/cli.ts",
      ["ai", "@ai-sdk/provider-utils", "@modelcontextprotocol/sdk"],
    ],
    ["the MCP subpath", "packages/memory/src/mcp/index.ts", ["ai", "@ai-sdk/provider-utils"]],
  ])("%s loads none of them", async (_name, entry, banned) => {
    const names = await packagesOf(entry);
    for (const b of banned) expect(names.has(b), `${entry} bundles ${b}`).toBe(false);
  });

  // the walk sees packages at all: each subpath loads its own peer
  it("the ai subpath loads ai and not the MCP SDK; the MCP subpath loads the SDK", async () => {
    expect((await packagesOf("packages/memory/src/ai.ts")).has("@modelcontextprotocol/sdk")).toBe(false);
    expect((await packagesOf("packages/memory/src/ai.ts")).has("ai")).toBe(true);
    expect((await packagesOf("packages/memory/src/mcp/index.ts")).has("@modelcontextprotocol/sdk")).toBe(true);
  });
});
