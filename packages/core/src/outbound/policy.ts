// The outbound policy shared by every runtime (spec fetches, webhook deliveries): what a user-chosen URL may reach,
// redirects followed by hand and re-checked, size and time caps. The transport (how one request is sent and its body
// read) is the runtime's.
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
  /**
   * DNS resolution; default the system resolver on Node. Injectable for tests. Fetch runtimes have no resolver: there a
   * host name passes on the URL checks alone unless this is given.
   */
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

/** Thrown by a transport when the body stopped before its end; the policy names the time cap when that is what stopped it. */
export class IncompleteBody extends Error {}

/**
 * Checks a URL and resolves its host; throws `refused` for anything the policy does not allow. `systemResolve` is the
 * runtime's resolver when `options.resolve` is not given; without either, a host name passes on the URL checks alone.
 */
export async function vetTarget(
  url: URL,
  options: Pick<SafeFetchOptions, "allowPrivate" | "resolve">,
  systemResolve?: (hostname: string) => Promise<ResolvedAddress[]>,
): Promise<ResolvedAddress | undefined> {
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
  const resolve = options.resolve ?? systemResolve;
  let addresses: ResolvedAddress[];
  if (isIpLiteral(host)) addresses = [{ address: host, family: host.includes(":") ? 6 : 4 }];
  else if (!resolve) return undefined;
  else {
    try {
      addresses = await resolve(host);
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

/** One answer as the policy reads it: status and headers first, the body only when it is wanted. */
export interface TransportResponse {
  status: number;
  location: string | undefined;
  contentType: string | undefined;
  /** Drops the body unread. */
  discard(): void;
  /** The whole body, or SpecFetchError past `maxBytes`, or IncompleteBody when it stopped early. */
  read(maxBytes: number, signal: AbortSignal): Promise<Uint8Array>;
}

/** A request other than a plain GET (a webhook's POST). */
export interface OutboundRequest {
  method?: string;
  body?: string | Uint8Array;
}

/** How a runtime sends one request: `pinned` is the vetted address the connection must use, when the runtime resolved one. */
export interface SpecTransport {
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  send(
    url: URL,
    pinned: ResolvedAddress | undefined,
    signal: AbortSignal,
    headers: Record<string, string>,
    request?: OutboundRequest,
  ): Promise<TransportResponse>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** GETs a user-chosen URL under the policy through `transport`. Throws SpecFetchError; never returns a non-2xx answer. */
export async function fetchUnderPolicy(input: string | URL, options: SafeFetchOptions, transport: SpecTransport): Promise<FetchedDocument> {
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
      const pinned = await vetTarget(url, options, transport.resolve);
      const res = await transport.send(url, pinned, signal, headers);
      const status = res.status;
      if (REDIRECTS.has(status)) {
        res.discard();
        const location = res.location;
        if (!location) throw new SpecFetchError("failed", `redirect (${status}) without a Location`);
        if (hop >= maxRedirects) throw new SpecFetchError("failed", `more than ${maxRedirects} redirects`);
        url = new URL(location, url);
        continue;
      }
      if (status < 200 || status > 299) {
        res.discard();
        throw new SpecFetchError("failed", `${url.href} answered ${status}`);
      }
      const body = await res.read(options.maxBytes ?? DEFAULT_MAX_BYTES, signal);
      return { url: url.href, status, contentType: res.contentType, body };
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
    throw new SpecFetchError("failed", `could not fetch ${url.href}: ${(e as { code?: string }).code ?? (e as Error).message}`);
  }
}

/** The cap's message, the same on every runtime. */
export const tooLarge = (maxBytes: number) => new SpecFetchError("failed", `the document is larger than ${maxBytes} bytes`);

/** What one request sent by `sendUnderPolicy` answered: any status, and the start of its body. */
export interface OutboundAnswer {
  status: number;
  /** At most `keepBytes` of the body, decoded as UTF-8; the rest is dropped unread. */
  body: string;
  truncated: boolean;
}

/**
 * Sends one request (a webhook's POST) to a user-chosen URL under the policy: the target vetted and pinned, no
 * redirect followed (a 3xx is an answer like any other), the whole exchange under `timeoutMs`, and no more than
 * `keepBytes` of the answer read. Throws SpecFetchError when the target is refused or did not answer.
 */
export async function sendUnderPolicy(
  input: string | URL,
  request: OutboundRequest & { headers?: Record<string, string>; keepBytes?: number },
  options: Pick<SafeFetchOptions, "allowPrivate" | "resolve" | "timeoutMs" | "signal">,
  transport: SpecTransport,
): Promise<OutboundAnswer> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new SpecFetchError("refused", "not an absolute URL");
  }
  const pinned = await vetTarget(url, options, transport.resolve);
  try {
    const res = await transport.send(url, pinned, signal, request.headers ?? {}, request);
    const keep = request.keepBytes ?? 4096;
    let bytes: Uint8Array;
    let truncated = false;
    try {
      bytes = await res.read(keep, signal);
    } catch (e) {
      if (!(e instanceof SpecFetchError)) throw e;
      bytes = new Uint8Array();
      truncated = true;
    }
    return { status: res.status, body: new TextDecoder().decode(bytes), truncated };
  } catch (e) {
    if (e instanceof SpecFetchError) throw e;
    if (signal.aborted)
      throw new SpecFetchError(
        "failed",
        options.signal?.aborted ? "the request was cancelled" : `timed out: no answer within ${timeoutMs} ms`,
      );
    throw new SpecFetchError("failed", `could not reach ${url.host}: ${(e as { code?: string }).code ?? (e as Error).message}`);
  }
}
