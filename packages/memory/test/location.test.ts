// Location of a created episode: the service's basePath, then the host's mount prefix added by the adapter.
import { toFetchHandler } from "@mountkit/core";
import { describe, expect, it } from "vitest";
import { createMemoryService } from "../src/index.js";

describe("Location", () => {
  it("composes the host's mount prefix, the service's basePath and the episode path", async () => {
    const memory = createMemoryService({ basePath: "/mem/", worker: { start: false } });
    try {
      const { key } = await memory.keys.create({ brainId: "b" });
      const handler = toFetchHandler(memory, { mountPath: "/host" });
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const r = await handler(
        new Request("http://x/host/mem/v1/episodes", { method: "POST", headers, body: JSON.stringify({ content: "hello" }) }),
      );
      expect(r.status).toBe(202);
      const { id } = (await r.json()) as { id: string };
      const location = r.headers.get("location");
      expect(location).toBe(`/host/mem/v1/episodes/${id}`);
      const again = await handler(new Request(`http://x${location}`, { headers }));
      expect(again.status).toBe(200);
    } finally {
      await memory.dispose();
    }
  });
});
