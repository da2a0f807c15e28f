// Waiting for a slow client to read: resolves false when it did not within the deadline, or went away.
import type { ServerResponse } from "node:http";

/** Waits for `drain` on a response, at most `timeoutMs`; false means the client stalled or left (drop it). */
export function waitDrain(res: ServerResponse, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      clearTimeout(t);
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(v);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const t = setTimeout(() => done(false), timeoutMs);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}
