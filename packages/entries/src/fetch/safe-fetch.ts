// Outbound fetch of user-chosen URLs: DNS resolved here, every address checked, the connection pinned to the checked
// address (no DNS rebinding between check and connect), redirects followed by hand and re-checked, size and time capped.
import { lookup as dnsLookup } from "node:dns/promises";
// biome-ignore lint/style/noRestrictedImports: an outbound client, not the request boundary: pinning the socket to the vetted IP needs the lookup hook of http.request (global fetch has none without undici's Agent).
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { checkAddress, isIpLiteral, METADATA_HOSTS } from "./address-policy.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface SafeFetchOptions {
  /** Let loopback/private/link-local through (tests against local servers only). Metadata addresses stay refused. */
  allowPrivate?: boolean;
  /** Default 25 MiB. */
  maxBytes?: number;
  /** Whole exchange including redirects; default 10 s. */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** DNS resolution; default the system resolver. Injectable for tests. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface FetchedDocument {
  /** Final URL after redirects. */
  url: string;
  status: number;
  contentType: string | undefined;
  body: Uint8Array;
}

/** `refused`: the target is not allowed (no request was sent to it). `failed`: it was allowed but did not deliver. */
export class SpecFetchError extends Error {
  constructor(
    readonly kind: "refused" | "failed",
    message: string,
  ) {
    super(message);
    this.name = "SpecFetchError";
  }
}

export const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 10_000;

const systemResolve = async (hostname: string): Promise<ResolvedAddress[]> =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Checks a URL and resolves its host; throws `refused` for anything the policy does not allow. */
export async function vetTarget(url: URL, options: Pick<SafeFetchOptions, "allowPrivate" | "resolve">): Promise<ResolvedAddress> {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new SpecFetchError("refused", `${url.protocol} URLs are not allowed: use http or https`);
  if (url.username || url.password) throw new SpecFetchError("refused", "URLs with credentials are not allowed");
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (!host) throw new SpecFetchError("refused", "the URL has no host");
  if (METADATA_HOSTS.has(host)) throw new SpecFetchError("refused", `${host} is a cloud metadata host`);
  if ((host === "localhost" || host.endsWith(".localhost")) && !options.allowPrivate)
    throw new SpecFetchError("refused", `${host} is a loopback host`);
  let addresses: ResolvedAddress[];
  if (isIpLiteral(host)) addresses = [{ address: host, family: host.includes(":") ? 6 : 4 }];
  else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch {
      throw new SpecFetchError("failed", `could not resolve ${host}`);
    }
    if (!addresses.length) throw new SpecFetchError("failed", `could not resolve ${host}`);
  }
  // Every address must pass: a name resolving to one public and one private address is refused.
  for (const a of addresses) {
    const v = checkAddress(a.address, options);
    if (!v.allowed) throw new SpecFetchError("refused", host === a.address ? `${v.reason}` : `${host} resolves to ${v.reason}`);
  }
  return addresses[0]!;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** One request to a vetted address; the socket connects to `pinned`, TLS still verifies the URL's host name. */
function requestOnce(url: URL, pinned: ResolvedAddress, signal: AbortSignal, headers: Record<string, string>): Promise<IncomingMessage> {
  const lookup: LookupFunction = (_hostname, opts, callback) => {
    if ((opts as { all?: boolean }).all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: "GET", headers, lookup, signal, agent: false }, resolve);
    req.on("error", reject);
    req.end();
  });
}

/** Thrown when the body stopped before its end; `safeFetch` names the time cap when that is what stopped it. */
class IncompleteBody extends Error {}

async function readCapped(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw new SpecFetchError("failed", `the document is larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      res.destroy();
      throw new SpecFetchError("failed", `the document is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  // A body delimited by the connection's close (no Content-Length, not chunked) "ends" cleanly when the
  // time cap destroys the socket: without these checks a truncated document would pass as a whole one.
  if (signal.aborted || !res.complete) throw new IncompleteBody("the connection closed before the whole document arrived");
  return Buffer.concat(chunks, total);
}

/** GETs a user-chosen URL under the policy. Throws SpecFetchError; never returns a non-2xx answer. */
export async function safeFetch(input: string | URL, options: SafeFetchOptions = {}): Promise<FetchedDocument> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])];
  const signal = AbortSignal.any(signals);
  const headers = {
    "user-agent": "mountkit-entries",
    accept: "application/json, application/yaml, text/yaml, */*;q=0.5",
    ...(options.headers ?? {}),
  };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new SpecFetchError("refused", "not an absolute URL");
  }
  const maxRedirects = options.maxRedirects ?? 5;
  try {
    for (let hop = 0; ; hop++) {
      const pinned = await vetTarget(url, options);
      const res = await requestOnce(url, pinned, signal, headers);
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        res.resume();
        const location = res.headers.location;
        if (!location) throw new SpecFetchError("failed", `redirect (${status}) without a Location`);
        if (hop >= maxRedirects) throw new SpecFetchError("failed", `more than ${maxRedirects} redirects`);
        url = new URL(location, url);
        continue;
      }
      if (status < 200 || status > 299) {
        res.resume();
        throw new SpecFetchError("failed", `${url.href} answered ${status}`);
      }
      const body = await readCapped(res, options.maxBytes ?? DEFAULT_MAX_BYTES, signal);
      return { url: url.href, status, contentType: res.headers["content-type"], body };
    }
  } catch (e) {
    if (e instanceof SpecFetchError) throw e;
    if (signal.aborted) {
      throw new SpecFetchError(
        "failed",
        options.signal?.aborted ? "the request was cancelled" : `timed out: no complete answer within ${timeoutMs} ms`,
      );
    }
    if (e instanceof IncompleteBody) throw new SpecFetchError("failed", `${url.href}: ${e.message}`);
    throw new SpecFetchError("failed", `could not fetch ${url.href}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}
