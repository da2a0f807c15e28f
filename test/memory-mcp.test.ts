// The memory service's MCP server over Streamable HTTP (/v1/mcp), driven by the official SDK's own client as an
// agent would, on Express, Fastify and fetch, on real sockets: the key's brain, a bad key refused, recall as of a
// past date, invalidation, playbooks as resources, the quota counting tool calls only.
import { createMemoryService } from "@mountkit/memory";
import { mcpHttp } from "@mountkit/memory/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, it } from "vitest";
import { call, forEachAdapter, unguarded } from "./harness.js";

const KEY_A = "mk_test_mcp_brain_a_0123456789";
const KEY_B = "mk_test_mcp_brain_b_0123456789";
const KEY_Q = "mk_test_mcp_quota_q_0123456789";

async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: "mountkit-test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

/** The HTTP status a client call failed with (the SDK's StreamableHTTPError carries it as `code`). */
async function failedStatus(p: Promise<unknown>): Promise<number | undefined> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "the call should have failed").toBeInstanceOf(StreamableHTTPError);
  return (err as StreamableHTTPError).code;
}

/** A tool's JSON answer; fails the test on a tool error. */
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return JSON.parse(r.content[0]!.text);
}

/** Remembers, then waits for extraction through the get_episode tool. */
async function remember(client: Client, args: Record<string, unknown>): Promise<any> {
  const queued = await tool(client, "remember", args);
  expect(queued.status).toBe("queued");
  for (let i = 0; i < 500; i++) {
    const e = await tool(client, "get_episode", { id: queued.id });
    if (e.status === "done" || e.status === "failed") return e;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("extraction did not finish");
}

forEachAdapter(
  "memory MCP over Streamable HTTP",
  async () => {
    const main = createMemoryService({ mcp: mcpHttp(), dailyQuota: 100_000, worker: { pollMs: 20 } });
    await main.keys.create({ brainId: "a", key: KEY_A });
    await main.keys.create({ brainId: "b", key: KEY_B });
    const small = createMemoryService({ mcp: mcpHttp(), dailyQuota: 2, basePath: "/small", worker: { start: false } });
    await small.keys.create({ brainId: "q", key: KEY_Q });
    return [main, small];
  },
  (t) => {
    const endpoint = () => `${t.url}/v1/mcp`;

    it("a bad or missing key is refused before any MCP message is read", async () => {
      expect(await failedStatus(connect(endpoint(), "mk_not_a_real_key_0123456789"))).toBe(401);
      const raw = await call(endpoint(), { method: "POST", body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
      expect(raw.status).toBe(401);
      expect(raw.headers.get("www-authenticate")).toMatch(/^Bearer/);
    });

    it("lists the tools and answers recall as of a past date with the fact valid then, not the later one", async () => {
      const client = await connect(endpoint(), KEY_A);
      try {
        const names = (await client.listTools()).tools.map((x) => x.name);
        expect(names).toEqual(
          expect.arrayContaining(["remember", "get_episode", "recall", "get_entity", "invalidate_fact", "forget_episode", "read_playbook"]),
        );
        const paris = await remember(client, { content: "Chloe Martin lives in Paris.", occurredAt: "2021-01-01" });
        const berlin = await remember(client, { content: "Chloe Martin moved to Berlin.", occurredAt: "2023-03-01T00:00:00Z" });
        expect(paris.edgeIds.length).toBeGreaterThan(0);
        expect(berlin.edgeIds.length).toBeGreaterThan(0);
        const q = "Where does Chloe Martin live?";
        const then = await tool(client, "recall", { query: q, asOf: "2022-06-01" });
        expect(then.asOf).toBe("2022-06-01T23:59:59.999Z");
        const thenIds = then.edges.map((e: any) => e.id);
        expect(thenIds).toContain(paris.edgeIds[0]);
        expect(thenIds).not.toContain(berlin.edgeIds[0]);
        const now = await tool(client, "recall", { query: q });
        expect(now.edges.map((e: any) => e.id)).toContain(berlin.edgeIds[0]);
        expect(now.edges.map((e: any) => e.id)).not.toContain(paris.edgeIds[0]);
        // the entity the facts are about, with its current facts
        const chloe = now.entities.find((e: any) => e.name === "Chloe Martin");
        const entity = await tool(client, "get_entity", { id: chloe.id });
        expect(entity.edges.map((e: any) => e.id)).toContain(berlin.edgeIds[0]);
        // another brain's key sees none of it
        const other = await connect(endpoint(), KEY_B);
        const theirs = await tool(other, "recall", { query: q });
        expect(theirs.edges).toEqual([]);
        const missing = (await other.callTool({ name: "get_entity", arguments: { id: chloe.id } })) as any;
        expect(missing.isError).toBe(true);
        expect(JSON.parse(missing.content[0].text)).toMatchObject({ error: "not_found" });
        await other.close();
      } finally {
        await client.close();
      }
    });

    it("invalidate_fact ends a fact now; recall no longer finds it, a second invalidation is a tool error", async () => {
      const client = await connect(endpoint(), KEY_A);
      try {
        const ep = await remember(client, { content: "Dario Rossi works at Initech." });
        const edgeId = ep.edgeIds[0];
        const ended = await tool(client, "invalidate_fact", { edgeId, reason: "he left" });
        expect(ended).toMatchObject({ id: edgeId, invalidationReason: "he left" });
        expect(ended.tInvalid).not.toBeNull();
        const after = await tool(client, "recall", { query: "Where does Dario Rossi work?" });
        expect(after.edges.map((e: any) => e.id)).not.toContain(edgeId);
        const again = (await client.callTool({ name: "invalidate_fact", arguments: { edgeId } })) as any;
        expect(again.isError).toBe(true);
        expect(JSON.parse(again.content[0].text)).toMatchObject({ error: "already_invalidated" });
        const bad = (await client.callTool({ name: "recall", arguments: { query: "x", asOf: "last tuesday" } })) as any;
        expect(bad.isError).toBe(true);
        expect(JSON.parse(bad.content[0].text)).toMatchObject({ error: "invalid_request" });
      } finally {
        await client.close();
      }
    });

    it("forget_episode erases an episode: get_episode and recall no longer find it, a second forget is not_found", async () => {
      const client = await connect(endpoint(), KEY_A);
      try {
        const ep = await remember(client, { content: "Elena Novak lives in Prague." });
        expect((await tool(client, "recall", { query: "Where does Elena Novak live?" })).episodes.map((e: any) => e.id)).toContain(ep.id);
        const removed = await tool(client, "forget_episode", { id: ep.id });
        expect(JSON.stringify(removed)).toContain(ep.id);
        const gone = (await client.callTool({ name: "get_episode", arguments: { id: ep.id } })) as any;
        expect(JSON.parse(gone.content[0].text)).toMatchObject({ error: "not_found" });
        const after = await tool(client, "recall", { query: "Where does Elena Novak live?" });
        expect(JSON.stringify(after)).not.toContain("Prague");
        const again = (await client.callTool({ name: "forget_episode", arguments: { id: ep.id } })) as any;
        expect(again.isError).toBe(true);
        expect(JSON.parse(again.content[0].text)).toMatchObject({ error: "not_found" });
      } finally {
        await client.close();
      }
    });

    it("playbooks are resources (memory://playbooks/{slug}) and the read_playbook tool", async () => {
      const client = await connect(endpoint(), KEY_A);
      try {
        await remember(client, { content: "Always greet new customers by their first name.", metadata: { playbook: "onboarding" } });
        const listed = await client.listResources();
        expect(listed.resources.map((r) => r.uri)).toContain("memory://playbooks/onboarding");
        const read = await client.readResource({ uri: "memory://playbooks/onboarding" });
        const markdown = (read.contents[0] as { text: string }).text;
        expect(markdown).toContain("greet new customers");
        const viaTool = await tool(client, "read_playbook", { slug: "onboarding" });
        expect(viaTool.content).toBe(markdown);
        expect((await tool(client, "list_playbooks", {})).items.map((p: any) => p.slug)).toContain("onboarding");
      } finally {
        await client.close();
      }
    });

    it("only tool calls and resource reads count against the daily quota, and a failed tool is refunded", async () => {
      const client = await connect(`${t.url}/small/v1/mcp`, KEY_Q);
      try {
        await client.listTools();
        await client.listTools();
        const failing = (await client.callTool({ name: "get_entity", arguments: { id: "nope" } })) as any;
        expect(failing.isError).toBe(true);
        await tool(client, "recall", { query: "anything" });
        await tool(client, "list_playbooks", {});
        expect(await failedStatus(client.callTool({ name: "recall", arguments: { query: "anything" } }))).toBe(429);
      } finally {
        await client.close();
      }
    });

    it("GET and DELETE answer 405 (stateless: no server stream, no session); the OpenAPI document describes POST /v1/mcp", async () => {
      const auth = { authorization: `Bearer ${KEY_A}` };
      const get = await call(endpoint(), { headers: { ...auth, accept: "text/event-stream" } });
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
      expect((await call(endpoint(), { method: "DELETE", headers: auth })).status).toBe(405);
      // the document in process (building it is heavy work of the test's own on a loaded machine); test/docs.test.ts
      // checks that the served YAML holds every route docs/memory.md lists, /v1/mcp included
      const doc = (await unguarded(() => t.services[0]!.openapi())) as any;
      expect(Object.keys(doc.paths["/v1/mcp"])).toEqual(["post"]);
      expect(doc.paths["/v1/mcp"].post.operationId).toBe("mcp");
      expect(doc.paths["/v1/mcp"].post.security).toEqual([{ apiKey: [] }]);
      expect(Object.keys(doc.paths["/v1/mcp"].post.responses)).toEqual(expect.arrayContaining(["200", "202", "401", "429"]));
    });
  },
);
