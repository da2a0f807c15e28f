// The host-safety scenarios' HTTP client and the unrelated-request probe (issue 24): plain node:http over agents the
// caller picks, every request bounded in time, so a wedged server gives a figure instead of a hung suite.
import { Agent, type IncomingHttpHeaders, request } from "node:http";

export interface Answer {
  /** 0 when no answer came (timeout or connection error). */
  status: number;
  /** From sending to the last byte of the answer (or to giving up). */
  ms: number;
  headers: IncomingHttpHeaders;
  body: string;
  error?: string;
}

export interface SendOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  agent?: Agent | false;
  /** Gives up after this long: status 0 with the error "no answer within N ms". */
  timeoutMs?: number;
  /** The client's own address (127.0.0.2 to be another client on loopback). */
  localAddress?: string;
}

export function send(url: string, o: SendOptions = {}): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (a: Omit<Answer, "ms">) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...a, ms: performance.now() - t0 });
    };
    const fail = (error: string) => finish({ status: 0, headers: {}, body: "", error });
    const req = request(
      url,
      { method: o.method ?? "GET", headers: o.headers, agent: o.agent ?? false, localAddress: o.localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (e) => fail(e.message));
      },
    );
    const timeoutMs = o.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      fail(`no answer within ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    req.on("error", (e) => fail(e.message));
    req.end(o.body);
  });
}

/** JSON body of an answer, or undefined when it is not JSON. */
export function jsonOf(a: Answer): any {
  try {
    return JSON.parse(a.body);
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface ProbeStats {
  requests: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers other than 200, and requests that got none, with their reason. */
  failures: string[];
}

export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function stats(latencies: number[], failures: string[] = []): ProbeStats {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN, failures };
}

export interface Probe {
  /** Ends the loop; a request still waiting counts with the time it has waited so far, so a stall is never lost. */
  stop(): Promise<ProbeStats>;
}

/**
 * GETs `url` every `intervalMs` over one keep-alive connection, as a host's own client of an unrelated route would,
 * and times each answer. One request at a time: a stalled server shows as one long sample, not a queue of them.
 */
export function startProbe(url: string, intervalMs = 25): Probe {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const failures: string[] = [];
  let stopped = false;
  let inFlightSince: number | undefined;
  const loop = (async () => {
    let next = performance.now();
    while (!stopped) {
      inFlightSince = performance.now();
      const a = await send(url, { agent, timeoutMs: 60_000 });
      inFlightSince = undefined;
      if (stopped && a.status === 0) break;
      latencies.push(a.ms);
      if (a.status !== 200) failures.push(`${a.status}${a.error ? ` (${a.error})` : ""}`);
      next += intervalMs;
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      else next = performance.now();
    }
  })();
  return {
    async stop() {
      stopped = true;
      // a request the server still holds is part of the figure: its wait so far is a sample
      const settled = await Promise.race([loop.then(() => true), sleep(200).then(() => false)]);
      if (!settled && inFlightSince !== undefined) {
        latencies.push(performance.now() - inFlightSince);
        failures.push("no answer before the scenario ended");
      }
      agent.destroy();
      return stats(latencies, failures);
    },
  };
}
