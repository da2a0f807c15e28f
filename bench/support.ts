// Support benchmark: messages/s through POST, then SSE fan-out at 1,000 and 10,000 concurrent streams on
// one server process (a child, so its memory is measured alone): memory per stream and publish-to-receive latency.
import { request } from "node:http";
import autocannon from "autocannon";
import { arg, type Child, percentile, spawnTarget, table } from "./lib.js";

const PRODUCT = "bench";
const cust = () => `cust_${crypto.randomUUID()}`;

async function postJson(url: string, body: unknown): Promise<any> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

async function conversations(base: string, n: number) {
  const out: Array<{ id: string; customerId: string }> = [];
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from({ length: Math.min(50, n - i) }, async (_, j) => {
      const customerId = cust();
      const r = await postJson(`${base}/api/conversations`, { productSlug: PRODUCT, customerId, message: `bench ${i + j}` });
      return { id: r.conversationId as string, customerId };
    });
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

async function postThroughput(base: string, seconds: number, connections: number) {
  const convs = await conversations(base, 50);
  let k = 0;
  const r = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        setupRequest: (req) => {
          const c = convs[k++ % convs.length]!;
          return {
            ...req,
            path: `/api/conversations/${c.id}/messages`,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              productSlug: PRODUCT,
              customerId: c.customerId,
              message: "hello from the benchmark",
              clientMessageId: `msg_${crypto.randomUUID()}`,
            }),
          };
        },
      },
    ],
  });
  if (r.non2xx) throw new Error(`${r.non2xx} non-2xx responses`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

/** A lightweight SSE reader: no EventSource objects, no JSON parsing; finds our markers in the raw text. */
function openRaw(url: string, onMarker: (sentAt: number, createdAt: number, at: number) => void): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: "text/event-stream" }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`stream ${res.statusCode}`));
      }
      res.setEncoding("utf8");
      let tail = "";
      res.on("data", (chunk: string) => {
        const at = Date.now();
        const text = tail + chunk;
        const re = /"body":"mark (\d+)[^\n]*?\},"createdAt":"([^"]+)"/g;
        let m: RegExpExecArray | null;
        let last = 0;
        while ((m = re.exec(text))) {
          onMarker(Number(m[1]), Date.parse(m[2]!), at);
          last = re.lastIndex;
        }
        tail = text.slice(Math.max(last, text.length - 4096));
      });
      res.on("error", () => {});
      resolve({ close: () => req.destroy() });
    });
    req.on("error", reject);
    req.end();
  });
}

type Conv = { id: string; customerId: string };

/** Opens one stream per entry of `targets`, 200 at a time, and waits until the server counts them all. */
async function openAll(child: Child, targets: Conv[], onMarker: (sentAt: number, createdAt: number, at: number) => void) {
  const conns: Array<{ close(): void }> = [];
  for (let i = 0; i < targets.length; i += 200) {
    const batch = targets
      .slice(i, i + 200)
      .map((c) => openRaw(`${child.url}/api/conversations/${c.id}/stream?productSlug=${PRODUCT}&customerId=${c.customerId}`, onMarker));
    conns.push(...(await Promise.all(batch)));
  }
  for (;;) {
    child.send("count");
    if (Number((await child.expect("count ")).slice(6)) >= targets.length) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return conns;
}

async function closeAll(child: Child, conns: Array<{ close(): void }>) {
  for (const c of conns) c.close();
  for (;;) {
    child.send("count");
    if (Number((await child.expect("count ")).slice(6)) === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const mem = async (child: Child) => {
  child.send("mem");
  const [rss, heap] = (await child.expect("mem ")).split(" ").slice(1).map(Number);
  return { rss: rss!, heap: heap! };
};

interface Latencies {
  publish: number[];
  post: number[];
}
const recorder = (l: Latencies) => (sentAt: number, createdAt: number, at: number) => {
  l.publish.push(at - createdAt);
  l.post.push(at - sentAt);
};
const summary = (l: Latencies) => {
  const a = [...l.publish].sort((x, y) => x - y);
  const b = [...l.post].sort((x, y) => x - y);
  return { delivered: a.length, p50: percentile(a, 50), p99: percentile(a, 99), postP50: percentile(b, 50), postP99: percentile(b, 99) };
};

async function waitDelivered(l: Latencies, expected: number) {
  const deadline = Date.now() + 15_000;
  while (l.publish.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/**
 * One server child per size. "one stream per conversation": N customers each watching their own
 * conversation, messages posted at a steady rate to random ones (the support workload). "broadcast":
 * N streams on one conversation, every message to all of them (the worst case for fan-out).
 */
async function fanOut(framework: string, streams: number, o: { rate: number; seconds: number; rounds: number }) {
  const child = await spawnTarget("./servers/support-target.ts", [framework]);
  try {
    const convs = await conversations(child.url, streams);
    const before = await mem(child);
    const spread: Latencies = { publish: [], post: [] };
    const openStart = Date.now();
    let conns = await openAll(child, convs, recorder(spread));
    const openMs = Date.now() - openStart;
    await new Promise((r) => setTimeout(r, 500));
    const after = await mem(child);
    const total = Math.round(o.rate * o.seconds);
    const posts: Array<Promise<unknown>> = [];
    const start = Date.now();
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / o.rate;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const c = convs[Math.floor(Math.random() * convs.length)]!;
      posts.push(
        postJson(`${child.url}/api/conversations/${c.id}/messages`, {
          productSlug: PRODUCT,
          customerId: c.customerId,
          message: `mark ${Date.now()}`,
        }),
      );
    }
    await Promise.all(posts);
    await waitDelivered(spread, total);
    await closeAll(child, conns);

    const broadcast: Latencies = { publish: [], post: [] };
    const one = convs[0]!;
    conns = await openAll(
      child,
      Array.from({ length: streams }, () => one),
      recorder(broadcast),
    );
    for (let r = 0; r < o.rounds; r++) {
      await postJson(`${child.url}/api/conversations/${one.id}/messages`, {
        productSlug: PRODUCT,
        customerId: one.customerId,
        message: `mark ${Date.now()}`,
      });
      await waitDelivered(broadcast, streams * (r + 1));
      await new Promise((res) => setTimeout(res, 100));
    }
    await closeAll(child, conns);
    return {
      streams,
      openMs,
      rssPerStream: (after.rss - before.rss) / streams,
      heapPerStream: (after.heap - before.heap) / streams,
      rssTotal: after.rss,
      spread: { ...summary(spread), expected: total },
      broadcast: { ...summary(broadcast), expected: streams * o.rounds },
    };
  } finally {
    await child.stop();
  }
}

export async function run(args: string[]) {
  const framework = args.find((a) => ["fastify", "express", "fetch"].includes(a)) ?? "fastify";
  const seconds = arg(args, "seconds", 5);
  const connections = arg(args, "connections", 50);
  const rounds = arg(args, "rounds", 10);
  const sizes = args.includes("--streams") ? [arg(args, "streams", 1000)] : [1000, 10_000];
  const rate = arg(args, "rate", 200);
  const fanSeconds = arg(args, "fan-seconds", 5);
  console.log(
    `support on ${framework}: POST ${seconds}s x ${connections} connections; fan-out at ${sizes.join(" and ")} streams: ${rate} messages/s for ${fanSeconds}s with one stream per conversation, then ${rounds} broadcast rounds to all streams of one conversation`,
  );

  const child = await spawnTarget("./servers/support-target.ts", [framework]);
  let post: Awaited<ReturnType<typeof postThroughput>>;
  try {
    await postThroughput(child.url, 1, connections);
    post = await postThroughput(child.url, seconds, connections);
  } finally {
    await child.stop();
  }
  console.log(
    `\nPOST /api/conversations/{id}/messages (with clientMessageId): ${Math.round(post.rps)} messages/s, p50 ${post.p50} ms, p99 ${post.p99} ms`,
  );

  const rows: Array<Record<string, string | number>> = [];
  const results = [];
  for (const n of sizes) {
    const r = await fanOut(framework, n, { rate, seconds: fanSeconds, rounds });
    results.push(r);
    rows.push({
      streams: r.streams,
      "open all (s)": r.openMs / 1000,
      "RSS/stream KiB": r.rssPerStream / 1024,
      "heap/stream KiB": r.heapPerStream / 1024,
      "server RSS MiB": r.rssTotal / 2 ** 20,
      "1/conv delivered": `${r.spread.delivered}/${r.spread.expected}`,
      "1/conv publish->recv p50/p99 ms": `${r.spread.p50}/${r.spread.p99}`,
      "1/conv POST->recv p50/p99": `${r.spread.postP50}/${r.spread.postP99}`,
      "broadcast delivered": `${r.broadcast.delivered}/${r.broadcast.expected}`,
      "broadcast p50/p99 ms": `${r.broadcast.p50}/${r.broadcast.p99}`,
    });
  }
  console.log(`\n${table(rows)}`);
  const big = results.find((r) => r.streams === 10_000);
  if (big) {
    console.log(
      `\ntargets at 10,000 streams: server RSS ${(big.rssTotal / 2 ** 20).toFixed(0)} MiB (< 1 GiB: ${big.rssTotal < 2 ** 30 ? "met" : "MISSED"}); ` +
        `p99 publish->receive, one stream per conversation: ${big.spread.p99} ms (< 100 ms: ${big.spread.p99 < 100 ? "met" : "MISSED"}); ` +
        `broadcast of one message to all 10,000: p99 ${big.broadcast.p99} ms (${big.broadcast.p99 < 100 ? "met" : "MISSED"})`,
    );
  }
}
