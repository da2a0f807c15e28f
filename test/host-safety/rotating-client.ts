// The rotating-customer client of issue 24, in its own process so its request loops never delay the suite's probe.
// Prints `ready` once loaded; on the stdin line `go`, `loops` concurrent loops list conversations, each request with a
// new random customerId, for `seconds` (at most `maxPerLoop` requests a loop); then it prints
// `result {"sent":..,"ok":..,"limited":..,"other":..}` and exits.
// argv: <base url> <product> <loops> <seconds> <maxPerLoop> [local address]
import { randomUUID } from "node:crypto";
import { Agent } from "node:http";
import { send } from "./http.js";

const [url, product, loops, seconds, maxPerLoop, localAddress] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: Number(loops) });
const counts = { sent: 0, ok: 0, limited: 0, other: 0 };

async function loop(until: number) {
  for (let i = 0; i < Number(maxPerLoop) && performance.now() < until; i++) {
    const q = new URLSearchParams({ productSlug: product!, customerId: `cust_${randomUUID()}` });
    const a = await send(`${url}/api/conversations/list?${q}`, { agent, localAddress: localAddress || undefined, timeoutMs: 20_000 });
    counts.sent++;
    if (a.status === 200) counts.ok++;
    else if (a.status === 429) counts.limited++;
    else counts.other++;
  }
}

process.stdin.setEncoding("utf8").once("data", async () => {
  const until = performance.now() + Number(seconds) * 1000;
  await Promise.all(Array.from({ length: Number(loops) }, () => loop(until)));
  agent.destroy();
  process.stdout.write(`result ${JSON.stringify(counts)}\n`);
  process.exit(0);
});
process.stdout.write("ready\n");
