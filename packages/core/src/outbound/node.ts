// `@mountkit/core/outbound` on Node: requests to user-chosen URLs with DNS resolved here, every address checked, the
// connection pinned to the checked address (no DNS rebinding between check and connect); redirects, caps and errors
// follow `policy.ts`.
import { lookup as dnsLookup } from "node:dns/promises";
// biome-ignore lint/style/noRestrictedImports: an outbound client, not the request boundary: pinning the socket to the vetted IP needs the lookup hook of http.request (global fetch has none without undici's Agent).
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import {
  type FetchedDocument,
  fetchUnderPolicy,
  IncompleteBody,
  type OutboundRequest,
  type ResolvedAddress,
  type SafeFetchOptions,
  type SpecTransport,
  tooLarge,
  vetTarget as vetWith,
} from "./policy.js";

export * from "./shared.js";

const systemResolve = async (hostname: string): Promise<ResolvedAddress[]> =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Checks a URL and resolves its host (the system resolver by default); throws `refused` for anything the policy does not allow. */
export async function vetTarget(url: URL, options: Pick<SafeFetchOptions, "allowPrivate" | "resolve">): Promise<ResolvedAddress> {
  return (await vetWith(url, options, systemResolve))!;
}

/** One request to a vetted address; the socket connects to `pinned`, TLS still verifies the URL's host name. */
function requestOnce(
  url: URL,
  pinned: ResolvedAddress,
  signal: AbortSignal,
  headers: Record<string, string>,
  request: OutboundRequest = {},
): Promise<IncomingMessage> {
  const lookup: LookupFunction = (_hostname, opts, callback) => {
    if ((opts as { all?: boolean }).all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: request.method ?? "GET", headers, lookup, signal, agent: false }, resolve);
    req.on("error", reject);
    req.end(request.body);
  });
}

async function readCapped(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw tooLarge(maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      res.destroy();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  // A body delimited by the connection's close (no Content-Length, not chunked) "ends" cleanly when the
  // time cap destroys the socket: without these checks a truncated document would pass as a whole one.
  if (signal.aborted || !res.complete) throw new IncompleteBody("the connection closed before the whole document arrived");
  return Buffer.concat(chunks, total);
}

/** Node's transport: http(s).request on a socket pinned to the vetted address. */
export const outboundTransport: SpecTransport = {
  resolve: systemResolve,
  async send(url, pinned, signal, headers, request) {
    const res = await requestOnce(url, pinned!, signal, headers, request);
    return {
      status: res.statusCode ?? 0,
      location: res.headers.location,
      contentType: res.headers["content-type"],
      discard: () => res.resume(),
      read: (maxBytes, readSignal) => readCapped(res, maxBytes, readSignal),
    };
  },
};

/** GETs a user-chosen URL under the policy. Throws SpecFetchError; never returns a non-2xx answer. */
export function safeFetch(input: string | URL, options: SafeFetchOptions = {}): Promise<FetchedDocument> {
  return fetchUnderPolicy(input, options, outboundTransport);
}
