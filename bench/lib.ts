// Shared benchmark helpers: child-process targets, percentiles, a raw SSE reader, table printing.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";

export const now = () => performance.timeOrigin + performance.now();

/**
 * CPU time of this process's main thread alone (the host's event loop), ms; NaN where /proc is missing (not Linux), so
 * a difference of two readings is NaN there too. `process.cpuUsage()` counts every thread: the kit's SQLite and extraction threads and V8's helpers too.
 * Read from /proc/self/task/<pid>/stat (utime and stime, fields 14 and 15, in clock ticks of 10 ms).
 */
export function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    // the fields after the command name, which is in parentheses and may hold spaces: field 3 is the first
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Node flags for child processes. Benchmarks measure the built packages (dist/, what users run): run
 * from TypeScript sources, tsx's keepNames wraps every closure in a defineProperty call and skews the
 * kit's numbers. MOUNTKIT_BENCH_SOURCE=1 measures the sources instead.
 */
export const nodeFlags = (): string[] => [
  ...(process.env.MOUNTKIT_BENCH_SOURCE === "1" ? ["--conditions=mountkit-source"] : []),
  "--import",
  "tsx",
];

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export interface Child {
  proc: ChildProcess;
  url: string;
  send(line: string): void;
  /** Waits for a stdout line starting with `prefix`. */
  expect(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * CPU pinning for load tests on a small shared machine: the target on one core, the load generator (this
 * process) on the others, so they do not steal each other's time slices. `undefined` when `taskset` is
 * missing or there is a single core.
 */
export function pinning(): { target: string; generator: string } | undefined {
  const cpus = availableParallelism();
  if (cpus < 2 || process.platform !== "linux") return undefined;
  try {
    execFileSync("taskset", ["-a", "-p", "-c", `1-${cpus - 1}`, String(process.pid)], { stdio: "ignore" });
  } catch {
    return undefined;
  }
  return { target: "0", generator: cpus === 2 ? "1" : `1-${cpus - 1}` };
}

/** Spawns a TypeScript script and waits for it to print `url <base>`; `cpu` pins it (taskset). */
export async function spawnTarget(script: string, args: string[], env: NodeJS.ProcessEnv = {}, cpu?: string): Promise<Child> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const argv = [...nodeFlags(), path, ...args];
  const proc = spawn(cpu ? "taskset" : process.execPath, cpu ? ["-c", cpu, process.execPath, ...argv] : argv, {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const waiters: Array<{ prefix: string; resolve: (l: string) => void }> = [];
  let buf = "";
  proc.stdout!.setEncoding("utf8");
  proc.stdout!.on("data", (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiters.findIndex((x) => line.startsWith(x.prefix));
      if (w >= 0) waiters.splice(w, 1)[0]!.resolve(line);
    }
  });
  const expect = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${script} exited (${code}) before printing "${prefix}"`));
      waiters.push({
        prefix,
        resolve: (line) => {
          proc.off("exit", onExit);
          resolve(line);
        },
      });
      proc.once("exit", onExit);
    });
  const url = (await expect("url ")).slice(4).trim();
  return {
    proc,
    url,
    send: (line) => proc.stdin!.write(`${line}\n`),
    expect,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.stdin!.end();
        setTimeout(() => proc.kill("SIGKILL"), 3000).unref();
      }),
  };
}

/** A minimal SSE reader over node:http: calls `onData(json, receivedAt)` per `data:` line. */
export function openSse(url: string, onData: (data: string, at: number) => void): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: "text/event-stream" }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`SSE ${url}: status ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding("utf8");
      let buf = "";
      res.on("data", (chunk: string) => {
        const at = now();
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          for (const line of frame.split("\n")) if (line.startsWith("data: ")) onData(line.slice(6), at);
        }
      });
      res.on("error", () => {});
      resolve({ close: () => req.destroy() });
    });
    req.on("error", reject);
    req.end();
  });
}

export function table(rows: Array<Record<string, string | number>>): string {
  if (!rows.length) return "";
  const cols = Object.keys(rows[0]!);
  const cell = (v: string | number) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c] ?? "").length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join("  ");
  return [line(cols), line(widths.map((w) => "-".repeat(w))), ...rows.map((r) => line(cols.map((c) => cell(r[c] ?? ""))))].join("\n");
}

export function argList(args: string[], name: string, fallback: readonly string[]): string[] {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]!.split(",") : [...fallback];
}

export const median = (xs: number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

export function arg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
}
