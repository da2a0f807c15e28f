// Test helpers: read a service's SSE stream through `service.fetch`, wait for a condition.
import type { Service } from "@mountkit/core";

export interface Frame {
  id?: string;
  type?: string;
  data?: any;
}

export async function openStream(s: Service, path: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await s.fetch(new Request(`http://kit${path}`, { headers, signal: abort.signal }));
  const frames: Frame[] = [];
  let buf = "";
  const done = (async () => {
    if (!res.body || res.status !== 200) return;
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        buf += dec.decode(r.value, { stream: true });
        for (let i = buf.indexOf("\n\n"); i !== -1; i = buf.indexOf("\n\n")) {
          const raw = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = /^data: (.*)$/m.exec(raw)?.[1];
          if (!data) continue;
          const parsed = JSON.parse(data);
          frames.push({ id: /^id: (.*)$/m.exec(raw)?.[1], type: parsed.type, data: parsed.data });
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    status: res.status,
    frames,
    types: () => frames.map((f) => f.type),
    close: async () => {
      abort.abort();
      await res.body?.cancel().catch(() => {});
      await done;
    },
    ended: done,
  };
}

export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function call(s: Service, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await s.fetch(
    new Request(`http://kit${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  const text = await r.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: r.status, headers: r.headers, body: parsed };
}
