// A webhook receiver on a real socket for the services' webhook suites: it can be down (answering 503) for a while,
// keeps what it took, and verifies each delivery with the Standard Webhooks library's own verifier.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The payload: `{ type, timestamp, data }`. */
  payload: { type: string; timestamp: string; data: any };
}

export interface Receiver {
  url: string;
  /** Deliveries answered 2xx, in arrival order (repeats included: delivery is at least once). */
  got: Received[];
  /** Requests answered in all, taken or not. */
  requests(): number;
  /** While down, every request answers 503. */
  down: boolean;
  /** Verifies a delivery's signature with the library's verifier; throws when it does not hold. */
  verify(r: Received, secret: string): unknown;
  /** Resolves once `n` distinct deliveries have been taken (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(host = "127.0.0.1"): Promise<Receiver> {
  let count = 0;
  const r: Receiver = {
    url: "",
    got: [],
    requests: () => count,
    down: false,
    verify: (d, secret) => new Webhook(secret).verify(d.body, d.headers as Record<string, string>),
    async waitFor(n, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (new Set(r.got.map((g) => g.id)).size < n) {
        if (Date.now() > until) throw new Error(`the receiver took ${new Set(r.got.map((g) => g.id)).size} distinct deliveries of ${n} in ${timeoutMs} ms`);
        await new Promise((res) => setTimeout(res, 20));
      }
      return r.got;
    },
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
  const server = createServer(async (req, res) => {
    count++;
    let body = "";
    for await (const c of req) body += c;
    if (r.down) {
      res.writeHead(503).end("down");
      return;
    }
    r.got.push({ id: String(req.headers["webhook-id"]), headers: req.headers, body, payload: JSON.parse(body) });
    res.writeHead(204).end();
  });
  await new Promise<void>((res) => server.listen(0, host, res));
  r.url = `http://${host}:${(server.address() as AddressInfo).port}/hooks`;
  return r;
}
