// Issue #10 figure (2): connections still held by 5,000 stalled uploads once the body deadline has passed,
// under each adapter, with the kit's limits and without them (what a host got before).
// `npm run bench -- hardening [--stalled 5000] [--timeout 2000] [--frameworks fastify,express,fetch]`
import { connect, type Socket } from "node:net";
import { arg, argList, spawnTarget, table } from "./lib.js";

interface Stalled {
  socket: Socket;
  closed: boolean;
  /** The connection failed (refused or reset before the server took it: a full listen backlog), not closed by the server. */
  failed: boolean;
  answer: string;
}

/** Opens `n` sockets that send the headers of a 1,000-byte JSON upload and one byte of it, in waves the listen backlog can take. */
export async function openStalled(base: string, n: number): Promise<Stalled[]> {
  const u = new URL(base);
  const head = `POST /api/conversations HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`;
  const all: Stalled[] = [];
  const wave = 250;
  for (let i = 0; i < n; i += wave) {
    const batch = Array.from(
      { length: Math.min(wave, n - i) },
      () =>
        new Promise<Stalled>((resolve) => {
          const s: Stalled = { socket: connect({ host: u.hostname, port: Number(u.port) }), closed: false, failed: false, answer: "" };
          s.socket.on("data", (c: Buffer) => {
            if (s.answer.length < 64) s.answer += c.toString("latin1");
          });
          s.socket.once("close", () => {
            s.closed = true;
          });
          let connected = false;
          s.socket.once("error", () => {
            s.failed = !connected;
            resolve(s);
          });
          s.socket.once("connect", () => {
            connected = true;
            s.socket.write(head, () => resolve(s));
          });
        }),
    );
    all.push(...(await Promise.all(batch)));
  }
  return all;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runStalled(args: string[]): Promise<void> {
  const n = arg(args, "stalled", 5000);
  const timeoutMs = arg(args, "timeout", 2000);
  const frameworks = argList(args, "frameworks", ["fastify", "express", "fetch"]);
  // held after the deadline plus a margin for closing 5,000 sockets on a busy machine
  const settleMs = timeoutMs + 5000;
  const rows: Array<Record<string, string | number>> = [];
  for (const framework of frameworks) {
    for (const mode of ["none", "limits"] as const) {
      const target = await spawnTarget("./servers/stalled-target.ts", [framework, mode, String(timeoutMs)]);
      try {
        const started = performance.now();
        const stalled = await openStalled(target.url, n);
        const openS = (performance.now() - started) / 1000;
        const openAtEnd = stalled.filter((s) => !s.closed).length;
        // counted once the last socket's deadline has passed too
        await sleep(settleMs);
        target.send("connections");
        const held = Number((await target.expect("connections ")).split(" ")[1]);
        const answered408 = stalled.filter((s) => s.answer.startsWith("HTTP/1.1 408")).length;
        // does it still serve while (or after) the stalled sockets were there?
        const probe = await fetch(
          `${target.url}/api/conversations/list?productSlug=demo&customerId=cust_3b241101-e2bb-4255-8caf-4136c566a962`,
        )
          .then((r) => r.status)
          .catch(() => 0);
        rows.push({
          adapter: framework,
          limits: mode === "limits" ? `body deadline ${timeoutMs} ms + serverDefaults` : "none (before #10)",
          "sent (s)": `${n} (${openS.toFixed(1)} s)`,
          "open when last sent": openAtEnd,
          [`held +${(settleMs / 1000).toFixed(0)} s after last`]: held,
          "client saw close": stalled.filter((s) => s.closed).length,
          "connect failed": stalled.filter((s) => s.failed).length,
          "got 408": answered408,
          "then GET": probe,
        });
        for (const s of stalled) s.socket.destroy();
      } finally {
        await target.stop();
      }
    }
  }
  console.log(`\n(2) connections held by ${n} stalled uploads after the deadline, per adapter`);
  console.log(table(rows));
}
