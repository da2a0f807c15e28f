// Graceful shutdown of the example server: SIGTERM finishes in-flight requests, ends SSE streams, exits 0.
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FRAMEWORKS, listen } from "../examples/server/src/listen.js";
import { echoService } from "./fixtures/echo-service.js";
import { startServer } from "./storage/server-process.js";

const customerId = "cust_3b241101-e2bb-4255-8caf-4136c566a962";

describe.each(FRAMEWORKS)("graceful shutdown [%s]", (framework) => {
  it("finishes the in-flight request, ends open streams, refuses new connections and exits 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mk-shutdown-"));
    const server = await startServer({ FRAMEWORK: framework, DATA_DIR: dir });
    try {
      const created = await fetch(`${server.url}/api/conversations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ productSlug: "demo", customerId, message: "hello" }),
      }).then((r) => r.json());
      const stream = await fetch(
        `${server.url}/api/conversations/${created.conversationId}/stream?productSlug=demo&customerId=${customerId}`,
      );
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      await reader.read();

      // a POST whose body is still arriving when SIGTERM lands
      const body = JSON.stringify({ productSlug: "demo", customerId, message: "sent during shutdown" });
      const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          `${server.url}/api/conversations/${created.conversationId}/messages`,
          { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
          (res) => {
            let text = "";
            res.setEncoding("utf8").on("data", (c: string) => (text += c));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on("error", reject);
        req.write(body.slice(0, 20));
        setTimeout(() => req.end(body.slice(20)), 500);
      });
      await new Promise((r) => setTimeout(r, 100));
      const exited = new Promise<number | null>((r) => server.child.once("exit", (code) => r(code)));
      server.child.kill("SIGTERM");

      // the open stream ends instead of hanging
      let ended = false;
      for (;;) {
        const r = await reader.read().catch(() => ({ done: true }));
        if (r.done) {
          ended = true;
          break;
        }
      }
      expect(ended).toBe(true);
      const answered = await inFlight;
      expect(answered.status).toBe(200);
      expect(JSON.parse(answered.text).id).toBeTruthy();
      expect(await exited).toBe(0);
      await expect(fetch(`${server.url}/api/conversations/list?productSlug=demo&customerId=${customerId}`)).rejects.toThrow();
    } finally {
      await server.crash();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.each(FRAMEWORKS)("closing a running server [%s]", (framework) => {
  it("ends open SSE streams at once and cleanly (terminated, not cut), without waiting for the grace period", async () => {
    const services = [echoService()];
    const running = await listen(framework, services, { shutdownGraceMs: 120_000 });
    try {
      const res = await fetch(`${running.url}/echo/stream?count=0&hold=1`);
      const reader = res.body!.getReader();
      await reader.read();
      const closed = running.close();
      // a cut connection rejects the read; a stream the server ended reports done
      let r = await reader.read();
      while (!r.done) r = await reader.read();
      expect(r.done).toBe(true);
      await closed;
    } finally {
      for (const s of services) await s.dispose();
    }
  }, 30_000);
});
