// Real hosts on real sockets for the contract tests: each adapter at the root and under a framework mount, plus Hono's mount.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Service, toFetchHandler } from "@mountkit/core";
import { mountkit } from "@mountkit/express";
import { mountkitFrameworkErrors, mountkitPlugin } from "@mountkit/fastify";
import { createFetchServer } from "@mountkit/fetch";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterAll, beforeAll, describe } from "vitest";

export interface Host {
  name: string;
  /** The framework mount prefix ("" at the root). */
  prefix: string;
  /** Origin plus prefix: requests go to `${base}/service/path`. */
  base: string;
  services: Service[];
}

type Start = (services: Service[], prefix: string) => Promise<{ url: string; close(): Promise<void> }>;

async function serve(server: Server) {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

const starts: Record<string, Start> = {
  express: async (services, prefix) => {
    const app = express();
    if (prefix) app.use(prefix, mountkit(services));
    else app.use(mountkit(services));
    return serve(createServer(app));
  },
  fastify: async (services, prefix) => {
    const app = Fastify({ frameworkErrors: mountkitFrameworkErrors(services) });
    await app.register(mountkitPlugin, { services, ...(prefix ? { prefix } : {}) });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
  },
  fetch: async (services, prefix) => serve(createFetchServer(services, { mountPath: prefix })),
  // Hono's default mount hands the handler a URL with the prefix already cut: `mountPath` restores the links
  hono: async (services, prefix) => {
    const app = new Hono();
    app.mount(prefix, toFetchHandler(services, { mountPath: prefix }));
    return serve(createFetchServer((request) => Promise.resolve(app.fetch(request))));
  },
};

export const HOSTS: Array<{ name: string; prefix: string }> = [
  { name: "express", prefix: "" },
  { name: "fastify", prefix: "" },
  { name: "fetch", prefix: "" },
  { name: "express", prefix: "/kit" },
  { name: "fastify", prefix: "/kit" },
  { name: "fetch", prefix: "/kit" },
  { name: "hono", prefix: "/kit" },
];

/** Runs `suite` once per host; services are made fresh for each and disposed after. */
export function forEachHost(title: string, makeServices: () => Promise<Service[]> | Service[], suite: (h: Host) => void) {
  for (const { name, prefix } of HOSTS) {
    describe(`${title} [${name}${prefix ? ` under ${prefix}` : ""}]`, () => {
      const h: Host = { name, prefix, base: "", services: [] };
      let running: { url: string; close(): Promise<void> } | undefined;
      beforeAll(async () => {
        h.services = await makeServices();
        running = await starts[name]!(h.services, prefix);
        h.base = `${running.url}${prefix}`;
      });
      afterAll(async () => {
        await running?.close();
        for (const s of h.services) await s.dispose();
      });
      suite(h);
    });
  }
}
