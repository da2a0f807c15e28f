// Raw HTTP for the hardening suites: request targets sent byte for byte (fetch would resolve `..`), and stalled sockets.
import { request } from "node:http";
import { connect, type Socket } from "node:net";

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

/** Sends `target` exactly as given (no URL parsing on the way out) and reads the whole answer. */
export function rawRequest(
  base: string,
  target: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, method: init.method ?? "GET", path: target, headers: init.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

export interface Stalled {
  socket: Socket;
  /** Everything the server sent on this socket. */
  received: () => string;
  /** Resolves when the server (or the network) closed the socket. */
  closed: Promise<void>;
  isClosed: () => boolean;
  /** performance.now() when the request was sent, and when the socket closed. */
  sentAt: number;
  closedAt: () => number | undefined;
}

/**
 * Opens a socket that sends a request's headers announcing `declared` body bytes, then `sent` of them,
 * then nothing: a stalled upload.
 */
export function stalledUpload(base: string, path: string, o: { declared?: number; sent?: string } = {}): Promise<Stalled> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: u.hostname, port: Number(u.port) });
    let data = "";
    let closed = false;
    let closedAt: number | undefined;
    const done = new Promise<void>((r) =>
      socket.once("close", () => {
        closed = true;
        closedAt = performance.now();
        r();
      }),
    );
    socket.on("data", (c: Buffer) => {
      data += c.toString("latin1");
    });
    socket.once("error", () => {});
    socket.once("connect", () => {
      const sentAt = performance.now();
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: ${o.declared ?? 1000}\r\n\r\n${o.sent ?? "{"}`,
        (err) =>
          err
            ? reject(err)
            : resolve({ socket, received: () => data, closed: done, isClosed: () => closed, sentAt, closedAt: () => closedAt }),
      );
    });
    socket.once("error", reject);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 25): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await sleep(everyMs);
  }
}
