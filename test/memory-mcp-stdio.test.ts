// `mountkit-memory mcp` as an agent host starts it: a child process on stdin/stdout, driven by the official SDK's
// client (StdioClientTransport), on SQLite under DATA_DIR, the brain from --brain or MEMORY_BRAIN. stdout must carry
// protocol messages only; the memory outlives the process.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openMemoryStore } from "@mountkit/sql/memory";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(root, "packages/memory/src/cli-bin.ts");
const dataDir = mkdtempSync(join(tmpdir(), "mk-mcp-stdio-"));

interface Started {
  client: Client;
  /** Anything the client could not read as a protocol message, and the child's stderr. */
  errors: Error[];
  stderr: () => string;
}

async function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--conditions=mountkit-source", "--import", "tsx", BIN, "mcp", ...args],
    env: { ...(process.env as Record<string, string>), DATA_DIR: dataDir, MEMORY_LOG_LEVEL: "info", ...env },
    cwd: root,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const errors: Error[] = [];
  const client = new Client({ name: "mountkit-test-agent", version: "1.0.0" });
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return { client, errors, stderr: () => stderr };
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return JSON.parse(r.content[0]!.text);
}

async function remember(client: Client, args: Record<string, unknown>): Promise<any> {
  const queued = await tool(client, "remember", args);
  for (let i = 0; i < 1000; i++) {
    const e = await tool(client, "get_episode", { id: queued.id });
    if (e.status === "done" || e.status === "failed") return e;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("extraction did not finish");
}

describe("mountkit-memory mcp (stdio)", () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  let paris: any;
  let berlin: any;

  it("serves --brain's memory on stdio: remember, then recall asOf a past date finds the fact valid then, not the later one", async () => {
    const s = await start(["--brain", "stdio-brain"]);
    try {
      paris = await remember(s.client, { content: "Chloe Martin lives in Paris.", occurredAt: "2021-01-01" });
      berlin = await remember(s.client, { content: "Chloe Martin moved to Berlin.", occurredAt: "2023-03-01" });
      expect(paris.status).toBe("done");
      const q = "Where does Chloe Martin live?";
      const then = (await tool(s.client, "recall", { query: q, asOf: "2022-06-01" })).edges.map((e: any) => e.id);
      expect(then).toContain(paris.edgeIds[0]);
      expect(then).not.toContain(berlin.edgeIds[0]);
      const now = (await tool(s.client, "recall", { query: q })).edges.map((e: any) => e.id);
      expect(now).toContain(berlin.edgeIds[0]);
      expect(now).not.toContain(paris.edgeIds[0]);
    } finally {
      await s.client.close();
    }
    // every stdout line was a protocol message; the logs went to stderr
    expect(s.errors).toEqual([]);
    expect(s.stderr()).toContain("memory MCP server on stdio for brain stdio-brain");
  }, 90_000);

  it("the episodes are in the SQLite file under DATA_DIR, and MEMORY_BRAIN names the brain of a new process", async () => {
    const { store, close } = await openMemoryStore({ DATA_DIR: dataDir });
    try {
      const page = await store.listEpisodes({ brainId: "stdio-brain", limit: 10, after: null });
      expect(page.items.map((e) => e.id).sort()).toEqual([paris.id, berlin.id].sort());
    } finally {
      await close();
    }
    const s = await start([], { MEMORY_BRAIN: "stdio-brain" });
    try {
      const then = await tool(s.client, "recall", { query: "Where does Chloe Martin live?", asOf: "2022-06-01" });
      expect(then.edges.map((e: any) => e.id)).toContain(paris.edgeIds[0]);
      const other = await start(["--brain", "someone-else"]);
      try {
        expect((await tool(other.client, "recall", { query: "Where does Chloe Martin live?" })).edges).toEqual([]);
      } finally {
        await other.client.close();
      }
    } finally {
      await s.client.close();
    }
  }, 90_000);

  it("without a brain it exits 2 and says how to name one", async () => {
    const { spawnSync } = await import("node:child_process");
    const r = spawnSync(process.execPath, ["--conditions=mountkit-source", "--import", "tsx", BIN, "mcp"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, MEMORY_BRAIN: "" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--brain <brainId> or MEMORY_BRAIN");
    expect(r.stdout).toBe("");
  }, 90_000);
});
