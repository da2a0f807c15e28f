// Benchmark target for stalled uploads: the support service under one adapter, as the example server hosts it.
// argv: <framework: express|fastify|fetch> <mode: limits|none> <bodyTimeoutMs>. Prints its URL; answers
// `connections` on stdin with `connections <n>` (the server's own count of open sockets).
import { createSupportService } from "@mountkit/support";
import { type Framework, listen } from "../../examples/server/src/listen.js";
import { onCommands } from "./control.js";

const [framework, mode, timeout] = process.argv.slice(2) as [Framework, "limits" | "none", string];
const bodyTimeoutMs = Number(timeout);
const support = createSupportService({ products: ["demo"], limits: { rateLimit: 1_000_000 } });
// `none`: what a host got before issue #10 (no body deadline, Node's defaults, Fastify's none)
const running = await listen(framework, [support], {
  bridge: { bodyTimeoutMs: mode === "limits" ? bodyTimeoutMs : 2 ** 31 - 1 },
  limits:
    mode === "limits"
      ? { maxConnections: 20_000 }
      : {
          headersTimeout: 60_000,
          requestTimeout: framework === "fastify" ? 0 : 300_000,
          keepAliveTimeout: 5_000,
          timeout: 0,
          maxConnections: 2 ** 31 - 1,
        },
});
console.log(`url ${running.url}`);

onCommands(
  (cmd) => {
    if (cmd === "connections") running.server.getConnections((_e, n) => console.log(`connections ${n}`));
  },
  () => {
    running.server.closeAllConnections();
    void running.close().then(() => process.exit(0));
  },
);
