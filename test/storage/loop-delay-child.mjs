// Preloaded into the example server's process by ./server-process.ts (`--import`): the child's side of the
// loop-delay guard. From its first request on it records its event-loop delay, and keeps the worst in the file
// MOUNTKIT_LOOP_DELAY_FILE, rewritten every 500 ms and at exit (a kill -9 loses at most the last half second).
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { renameSync, writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const file = process.env.MOUNTKIT_LOOP_DELAY_FILE;
if (file) {
  // start-up (module loading, migrations) happens before the server listens and stalls no request: not measured
  const h = monitorEventLoopDelay({ resolution: 10 });
  // written beside and renamed, so a kill -9 mid-write leaves the previous record whole
  const write = () => {
    writeFileSync(`${file}.tmp`, JSON.stringify({ maxMs: h.count === 0 ? 0 : h.max / 1e6, samples: h.count }));
    renameSync(`${file}.tmp`, file);
  };
  const onFirstRequest = () => {
    unsubscribe("http.server.request.start", onFirstRequest);
    h.enable();
    setInterval(write, 500).unref();
    process.on("exit", write);
  };
  subscribe("http.server.request.start", onFirstRequest);
}
