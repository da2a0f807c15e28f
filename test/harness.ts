// Cross-adapter HTTP matrix: the same suite against real Express, Fastify and fetch-on-node:http servers (./servers.ts).
// Each suite's server records its event-loop delay per test; a suite whose server stalled past the guard's
// threshold fails in its afterAll, naming the tests (./loop-delay.ts).
import type { Server } from "node:http";
import type { Service } from "@mountkit/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe } from "vitest";
import { BETWEEN_TESTS } from "./loop-delay.js";
import { FRAMEWORKS, type Framework, type ListenOptions, listen, type Running } from "./servers.js";

export { LOOP_DELAY_MAX_MS, unguarded } from "./loop-delay.js";
export { FRAMEWORKS, type Framework };

export interface AdapterTarget {
  framework: Framework;
  /** Base URL of the running server; valid inside tests and hooks. */
  url: string;
  services: Service[];
  /** The node:http server behind the adapter; valid inside tests and hooks. */
  server?: Server;
}

export interface ForEachAdapterOptions {
  frameworks?: readonly Framework[];
  /** Express: mount after the host's express.json(). */
  hostJsonParser?: boolean;
  /** Server and kit limits for this suite (shortened timeouts in the hardening tests). */
  limits?: Pick<ListenOptions, "limits" | "bridge">;
}

export function forEachAdapter(
  name: string,
  makeServices: () => Promise<Service[]> | Service[],
  suite: (t: AdapterTarget) => void,
  options: ForEachAdapterOptions = {},
) {
  for (const framework of options.frameworks ?? FRAMEWORKS) {
    describe(`${name} [${framework}]`, () => {
      const t: AdapterTarget = { framework, url: "", services: [] };
      let running: Running | undefined;
      beforeAll(async () => {
        t.services = await makeServices();
        running = await listen(framework, t.services, { hostJsonParser: options.hostJsonParser, ...options.limits });
        t.url = running.url;
        t.server = running.server;
      });
      // the server's loop is watched from listen() to close(); each test is its own window, so a stall names its test
      beforeEach(async () => {
        await running?.loop.take(BETWEEN_TESTS);
      });
      afterEach(async (ctx) => {
        await running?.loop.take(ctx.task.fullTestName ?? ctx.task.name);
      });
      afterAll(async () => {
        try {
          await running?.close();
        } finally {
          for (const s of t.services) await s.dispose();
        }
      });
      suite(t);
    });
  }
}

/** JSON request helper: returns status, headers and parsed body (or text when not JSON). */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string | Uint8Array } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  let body: string | Uint8Array | undefined;
  if (init.rawBody !== undefined) body = init.rawBody;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(url, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body: body as BodyInit | undefined,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
