// Raw HTTP for the hardening suites: request targets sent byte for byte (fetch would resolve `..`), whole requests
// written as given (no Host, odd methods), and stalled sockets.
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

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** The interim 1xx statuses before the answer. */
  interim: number[];
  /** Whether the server closed the connection after answering. */
  closed: boolean;
}

/** Writes `request` as is on a new socket; reads one answer (and whether the server then closes, within 1 s). */
export function rawExchange(url: string, request: string): Promise<RawReply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: u.hostname, port: Number(u.port) });
    let data = Buffer.alloc(0);
    let reply: Omit<RawReply, "closed"> | undefined;
    const timer = setTimeout(() => finish(false), 1000);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      if (reply) resolve({ ...reply, closed });
      else reject(new Error(`no complete answer; got ${JSON.stringify(data.toString("latin1"))}`));
    };
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      reply ??= parseReply(data);
    });
    socket.on("end", () => finish(true));
    socket.on("error", reject);
    socket.write(request);
  });
}

/** One complete answer from raw bytes, or undefined while more is due (1xx answers skipped, Content-Length bodies). */
function parseReply(data: Buffer): Omit<RawReply, "closed"> | undefined {
  const interim: number[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf("\r\n\r\n", at);
    if (end < 0) return undefined;
    const [statusLine, ...lines] = data.subarray(at, end).toString("latin1").split("\r\n");
    const status = Number(statusLine!.split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const l of lines) headers[l.slice(0, l.indexOf(":")).toLowerCase()] = l.slice(l.indexOf(":") + 1).trim();
    if (status < 200) {
      interim.push(status);
      at = end + 4;
      continue;
    }
    const rest = data.subarray(end + 4);
    const text = headers["transfer-encoding"] === "chunked" ? dechunk(rest) : sized(rest, Number(headers["content-length"] ?? 0));
    if (text === undefined) return undefined;
    return { status, headers, body: text ? JSON.parse(text) : undefined, interim };
  }
}

const sized = (rest: Buffer, length: number) => (rest.length < length ? undefined : rest.subarray(0, length).toString("utf8"));

/** A chunked body once its last chunk arrived, else undefined. */
function dechunk(rest: Buffer): string | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = rest.indexOf("\r\n", at);
    if (eol < 0) return undefined;
    const size = Number.parseInt(rest.subarray(at, eol).toString("latin1"), 16);
    if (size === 0) return Buffer.concat(parts).toString("utf8");
    if (rest.length < eol + 2 + size + 2) return undefined;
    parts.push(rest.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
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
