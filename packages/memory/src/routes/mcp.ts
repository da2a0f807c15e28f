// /v1/mcp: the MCP Streamable HTTP endpoint of the brain the API key names, when the host passes
// `createMemoryService({ mcp: mcpHttp() })` (`@mountkit/memory/mcp`). This table knows only the handler's
// shape, so the root entry never loads the MCP SDK. Stateless: each POST is answered as JSON, no session is
// kept: with no GET or DELETE route the dispatcher answers those 405 (`Allow: POST`), which the SDK's client
// takes as "no server stream".
import { empty, type Middleware, type RequestContext, route, text } from "@mountkit/core";
import * as z from "zod";
import type { MemoryApi } from "../api.js";
import { errors, SECURITY } from "./common.js";

/** Answers one Streamable HTTP request for a brain (implemented by `mcpHttp()` on the official SDK). */
export interface MemoryMcpHttp {
  handle(input: { api: MemoryApi; brainId: string; request: Request; body: unknown }): Promise<Response>;
}

export const MCP_PATH = "/v1/mcp";

/** The JSON-RPC methods that do work in the brain: each POST carrying one is a call of the daily quota. */
const COUNTED = new Set(["tools/call", "resources/read"]);

const JsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ description: "A JSON-RPC 2.0 message of the Model Context Protocol (request, notification or response)" });
const McpBody = z.union([JsonRpcMessage, z.array(JsonRpcMessage).min(1).max(100)]);

const counted = (body: unknown) =>
  (Array.isArray(body) ? body : [body]).some((m) => COUNTED.has((m as { method?: unknown }).method as string));

function toRequest(ctx: RequestContext): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(ctx.headers)) if (v !== undefined) headers.set(k, v);
  return new Request(`http://mcp.invalid${ctx.baseUrl}${MCP_PATH}`, { method: ctx.method, headers, signal: ctx.signal });
}

async function fromResponse(res: Response) {
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== "content-type" && k !== "content-length") headers[k] = v;
  });
  const body = await res.text();
  if (body === "") return empty(res.status, headers);
  return text(res.status, body, res.headers.get("content-type") ?? "application/json", headers);
}

export function mcpRoutes(deps: { api: MemoryApi; auth: Middleware; quota: Middleware; mcp: MemoryMcpHttp }) {
  const { api, auth, quota, mcp } = deps;
  return [
    route({
      method: "POST",
      path: MCP_PATH,
      operationId: "mcp",
      summary: "Model Context Protocol server of this brain (Streamable HTTP, stateless)",
      description:
        "The brain's memory as MCP tools (remember, get_episode, recall, get_entity, invalidate_fact, forget_episode, read_playbook, list_playbooks) " +
        "and resources (`memory://playbooks/{slug}`), for an MCP client's Streamable HTTP transport. The API key is the bearer, as on " +
        "every route. Each POST is answered with one JSON body (no SSE stream, no session id). A POST carrying `tools/call` or " +
        "`resources/read` is one call of the daily quota (refunded when the tool fails); the handshake and listings are not counted.",
      tags: ["mcp"],
      security: SECURITY,
      use: [auth],
      body: McpBody,
      responses: {
        200: { description: "The JSON-RPC response(s) to the request(s) sent" },
        202: { description: "Notifications or responses only: accepted, no body" },
        406: { description: "The Accept header lacks application/json and text/event-stream" },
        ...errors(400, 413, 415),
      },
      handler: async (ctx) => {
        const brainId = ctx.state.brainId as string;
        const answer = () => mcp.handle({ api, brainId, request: toRequest(ctx), body: ctx.body }).then(fromResponse);
        if (!counted(ctx.body)) return answer();
        let result: Awaited<ReturnType<typeof answer>> | undefined;
        // the quota refunds a call whose result is not 2xx: a failed tool is answered 200 with `isError`, so it is
        // reported to the quota as a failure and the real answer returned with the quota's headers
        const settled = await quota(ctx, async () => {
          result = await answer();
          return { ...result, status: failed(result) ? 500 : result.status };
        });
        return { ...result!, headers: { ...result!.headers, ...settled.headers } };
      },
    }),
  ];
}

function failed(result: { status: number; text?: string }): boolean {
  if (result.status < 200 || result.status >= 300 || result.text === undefined) return result.status >= 300;
  try {
    const body = JSON.parse(result.text) as unknown;
    return (Array.isArray(body) ? body : [body]).some(
      (m: { error?: unknown; result?: { isError?: unknown } }) => m.error !== undefined || m.result?.isError === true,
    );
  } catch {
    return true;
  }
}
