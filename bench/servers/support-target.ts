// Benchmark target: the support service alone in this process (so its memory is measured alone).
// argv: <framework>. stdin: "mem" -> "mem <rss> <heapUsed> <external>" after a GC; "count" -> "count <open streams>".
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createSupportService } from "@mountkit/support";
import { FRAMEWORKS, type Framework, listen } from "../../examples/server/src/listen.js";
import { onCommands } from "./control.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const framework = (process.argv[2] ?? "fastify") as Framework;
if (!FRAMEWORKS.includes(framework)) throw new Error(`framework must be one of ${FRAMEWORKS.join(", ")}`);
const service = createSupportService({
  products: [{ slug: "bench", limits: { rateLimit: 1_000_000_000, maxStreamsPerCustomer: 1_000_000 } }],
  agentToken: "bench",
});
const running = await listen(framework, [service]);

onCommands(
  (cmd) => {
    if (cmd === "mem") {
      for (let k = 0; k < 3; k++) gc();
      const m = process.memoryUsage();
      process.stdout.write(`mem ${m.rss} ${m.heapUsed} ${m.external}\n`);
    } else if (cmd === "count") process.stdout.write(`count ${service.hub.size}\n`);
  },
  async () => {
    await running.close();
    await service.dispose();
    process.exit(0);
  },
);
process.stdout.write(`url ${running.url}\n`);
