// The OpenAI-compatible extractor and embedder against a local stand-in chat-completions server.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAiEmbedder, openAiExtractor } from "../src/index.js";
import { setup } from "./helpers.js";

interface Seen {
  path: string;
  auth: string | undefined;
  body: any;
}

let server: Server;
let base = "";
const seen: Seen[] = [];
let failNext = 0;

/** Answers like a chat-completions server: entities for the "entities" schema, facts for "facts". */
function answer(body: any): unknown {
  const schema = body.response_format?.json_schema?.name;
  const text: string = body.messages?.[1]?.content ?? "";
  if (text.includes("REFUSE")) return { choices: [{ message: { role: "assistant", content: null, refusal: "no" } }] };
  if (text.includes("GARBAGE")) return { choices: [{ message: { role: "assistant", content: "not json" } }] };
  if (schema === "entities") {
    return {
      choices: [
        {
          message: {
            role: "assistant",
            content: JSON.stringify({
              entities: [
                { name: "Ada Lovelace", kind: "person", aliases: ["Ada"] },
                { name: "London", kind: "place", aliases: [] },
              ],
            }),
          },
        },
      ],
    };
  }
  return {
    choices: [
      {
        message: {
          role: "assistant",
          content: JSON.stringify({
            facts: [
              {
                source: "Ada Lovelace",
                relation: "lives in",
                target: "London",
                fact: "Ada Lovelace lives in London.",
                validFrom: "1835-06-01",
                validUntil: null,
              },
              {
                source: "Ada",
                relation: "likes",
                target: "mathematics",
                fact: "Ada Lovelace likes mathematics.",
                validFrom: null,
                validUntil: null,
              },
            ],
          }),
        },
      },
    ],
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = raw ? JSON.parse(raw) : {};
      seen.push({ path: req.url ?? "", auth: req.headers.authorization, body });
      if (failNext > 0) {
        failNext--;
        res.writeHead(503).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      if (req.url === "/v1/embeddings") {
        res.end(
          JSON.stringify({
            data: body.input.map((t: string, index: number) => ({ index, embedding: [t.length % 7, 1, t.includes("London") ? 1 : 0] })),
          }),
        );
        return;
      }
      res.end(JSON.stringify(answer(body)));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("openAiExtractor", () => {
  it("sends JSON-schema chat completions and maps entities and facts", async () => {
    const x = openAiExtractor({ baseUrl: base, apiKey: "sk-test", model: "stand-in" });
    const input = { content: "Ada lives in London.", metadata: { speaker: "Ada" }, occurredAt: Date.UTC(2024, 0, 1) };
    const entities = await x.extractEntities(input);
    expect(entities).toEqual([
      { name: "Ada Lovelace", kind: "person", aliases: ["Ada"] },
      { name: "London", kind: "place", aliases: [] },
    ]);
    const facts = await x.extractFacts({ ...input, entities });
    expect(facts[0]).toMatchObject({ source: "Ada Lovelace", relation: "lives in", target: "London", validFrom: "1835-06-01" });
    const req = seen[seen.length - 1]!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.auth).toBe("Bearer sk-test");
    expect(req.body).toMatchObject({
      model: "stand-in",
      response_format: { type: "json_schema", json_schema: { name: "facts", strict: true } },
    });
    expect(req.body.messages[1].content).toContain("Ada Lovelace (person)");
    expect(req.body.messages[1].content).toContain("Reference time: 2024-01-01T00:00:00.000Z");
  });

  it("retries 5xx answers, then gives up with the status", async () => {
    const x = openAiExtractor({ baseUrl: base, model: "stand-in", retries: 1 });
    failNext = 1;
    expect(await x.extractEntities({ content: "Ada", metadata: {}, occurredAt: 0 })).toHaveLength(2);
    failNext = 2;
    await expect(x.extractEntities({ content: "Ada", metadata: {}, occurredAt: 0 })).rejects.toThrow(/503/);
  });

  it("waits a full-jitter delay between retries, drawn from the injected random source under a doubling cap", async () => {
    const waited: number[] = [];
    const draws = [0.5, 0.25, 1];
    const x = openAiExtractor({
      baseUrl: base,
      model: "stand-in",
      retries: 3,
      random: () => draws.shift()!,
      sleep: async (ms) => void waited.push(ms),
    });
    failNext = 3;
    expect(await x.extractEntities({ content: "Ada", metadata: {}, occurredAt: 0 })).toHaveLength(2);
    // caps 250, 500, 1000 ms
    expect(waited).toEqual([125, 125, 1000]);
  });

  it("runs the whole pipeline: resolution, relation normalisation, dates, failures on bad output", async () => {
    const { service, api, ingest } = await setup({ extractor: openAiExtractor({ baseUrl: base, model: "stand-in" }) });
    try {
      const ep = await ingest("Ada lives in London and likes mathematics.");
      expect(ep.status).toBe("done");
      const edges = (await api.listEdges("brain-a")).items;
      expect(edges.map((e) => e.relation).sort()).toEqual(["likes", "lives_in"]);
      expect(edges.find((e) => e.relation === "lives_in")!.tValid).toBe("1835-06-01T00:00:00.000Z");
      expect((await api.listEntities("brain-a")).items.filter((e) => e.name === "Ada Lovelace")).toHaveLength(1);
      const refused = await ingest("REFUSE this one");
      expect(refused).toMatchObject({ status: "failed", error: "model refused: no" });
      const garbage = await ingest("GARBAGE please");
      expect(garbage).toMatchObject({ status: "failed", error: "model output is not valid JSON" });
    } finally {
      await service.dispose();
    }
  });
});

describe("openAiEmbedder", () => {
  it("embeds in order and feeds the vector list of recall", async () => {
    const e = openAiEmbedder({ baseUrl: base, model: "embed-test" });
    expect(await e.embed(["a", "London"])).toEqual([
      [1, 1, 0],
      [6, 1, 1],
    ]);
    const { service, api, ingest } = await setup({ embedder: e });
    try {
      await ingest("Ada Lovelace lives in London.");
      const r = await api.recall("brain-a", { query: "capital city" });
      expect(r.episodes.length).toBeGreaterThan(0);
    } finally {
      await service.dispose();
    }
  });
});
