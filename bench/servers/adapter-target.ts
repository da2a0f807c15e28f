// Benchmark target: one JSON route and one SSE broadcast, either through the kit or hand-written natively.
// argv: <framework: express|fastify|fetch> <mode: kit|native>. Prints its URL on stdout.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { channel, defineService, json, route, type SseEvent, sse } from "@mountkit/core";
import { mountkit } from "@mountkit/express";
import { mountkitPlugin } from "@mountkit/fastify";
import { createFetchServer, nodeToRequest, writeResponse } from "@mountkit/fetch";
import express from "express";
import Fastify from "fastify";
import * as z from "zod";
import { onCommands } from "./control.js";

const [framework, mode] = process.argv.slice(2) as ["express" | "fastify" | "fetch", "kit" | "native"];
const Body = z.object({ name: z.string().min(1), count: z.number().int() });
const reply = (b: z.infer<typeof Body>) => ({ ok: true, name: b.name, count: b.count + 1 });

// Broadcast: every open stream gets each published event.
const kitStreams = new Set<{ push(e: SseEvent): boolean }>();
const nativeWriters = new Set<(frame: string) => void>();
let seq = 0;
function publish(sentAt: number) {
  seq++;
  const data = JSON.stringify({ type: "tick", sentAt });
  if (mode === "kit") for (const s of kitStreams) s.push({ id: seq, data });
  else {
    const frame = `id: ${seq}\ndata: ${data}\n\n`;
    for (const w of nativeWriters) w(frame);
  }
}

const kit = defineService({
  name: "bench",
  title: "bench",
  version: "1",
  mounts: ["/bench"],
  errorBody: (e) => ({ error: e.message, details: e.details }),
  routes: [
    route({ method: "POST", path: "/bench/json", body: Body, handler: (ctx) => json(200, reply(ctx.body)) }),
    route({ method: "GET", path: "/bench/ping", handler: () => json(200, { ok: true }) }),
    route({
      method: "GET",
      path: "/bench/stream",
      handler: (ctx) => {
        const ch = channel<SseEvent>({ signal: ctx.signal, onClose: () => kitStreams.delete(ch) });
        kitStreams.add(ch);
        ch.push({ data: '{"type":"connected"}' });
        return sse(ch, { retryMs: 1000 });
      },
    }),
  ],
});

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" };
function nativeNodeStream(res: ServerResponse) {
  res.writeHead(200, SSE_HEADERS);
  res.write('retry: 1000\n\ndata: {"type":"connected"}\n\n');
  const w = (f: string) => res.write(f);
  nativeWriters.add(w);
  res.on("close", () => nativeWriters.delete(w));
}

let server: Server;
if (framework === "express") {
  const app = express();
  if (mode === "kit") app.use(mountkit(kit));
  else {
    app.post("/bench/json", express.json(), (req, res) => {
      const r = Body.safeParse(req.body);
      if (!r.success) return void res.status(400).json({ error: "invalid" });
      res.json(reply(r.data));
    });
    app.get("/bench/stream", (_req, res) => nativeNodeStream(res));
  }
  server = createServer(app);
} else if (framework === "fastify") {
  const app = Fastify({ logger: false });
  if (mode === "kit") await app.register(mountkitPlugin, { services: [kit] });
  else {
    app.post("/bench/json", async (req, rep) => {
      const r = Body.safeParse(req.body);
      if (!r.success) return rep.code(400).send({ error: "invalid" });
      return reply(r.data);
    });
    app.get("/bench/ping", async () => ({ ok: true }));
    app.get("/bench/stream", (_req, rep) => {
      rep.hijack();
      nativeNodeStream(rep.raw);
    });
  }
  await app.ready();
  server = app.server;
} else {
  const native = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname === "/bench/json") {
      const r = Body.safeParse(await req.json().catch(() => undefined));
      if (!r.success) return Response.json({ error: "invalid" }, { status: 400 });
      return Response.json(reply(r.data));
    }
    if (url.pathname === "/bench/stream") {
      const enc = new TextEncoder();
      let w: ((f: string) => void) | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode('retry: 1000\n\ndata: {"type":"connected"}\n\n'));
          w = (f) => c.enqueue(enc.encode(f));
          nativeWriters.add(w);
        },
        cancel() {
          if (w) nativeWriters.delete(w);
        },
      });
      return new Response(body, { headers: SSE_HEADERS });
    }
    return new Response("not found", { status: 404 });
  };
  server =
    mode === "kit"
      ? createFetchServer(kit)
      : createServer((req, res) => void native(nodeToRequest(req, res)).then((r) => writeResponse(r, res)));
}

// control channel: stdin lines "publish <sentAt>" / "count"
onCommands((cmd, arg) => {
  if (cmd === "publish") publish(Number(arg));
  if (cmd === "count") process.stdout.write(`count ${mode === "kit" ? kitStreams.size : nativeWriters.size}\n`);
  if (cmd === "cpu") {
    const u = process.cpuUsage();
    process.stdout.write(`cpu ${u.user + u.system}\n`);
  }
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`url http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
