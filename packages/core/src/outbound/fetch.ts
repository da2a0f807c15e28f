// `@mountkit/core/outbound` on fetch runtimes (Workers, Deno, Bun, browsers): requests through the runtime's `fetch`,
// redirects handed back to the policy. The address policy and caps are the same as on Node.
import { type FetchedDocument, fetchUnderPolicy, IncompleteBody, type SafeFetchOptions, type SpecTransport, tooLarge } from "./policy.js";

export * from "./shared.js";

async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) break;
    total += next.value.byteLength;
    if (total > maxBytes) {
      await reader?.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(next.value);
  }
  if (signal.aborted) throw new IncompleteBody("the connection closed before the whole document arrived");
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The runtime's `fetch`, redirects handed back to the policy. There is no DNS here: IP literals, metadata and
 * loopback names are refused by the URL checks, and a host name's addresses are checked only when the host gives
 * `resolve` option (the connection cannot be pinned to them).
 */
export const outboundTransport: SpecTransport = {
  async send(url, _pinned, signal, headers, request) {
    const res = await fetch(url, {
      method: request?.method ?? "GET",
      headers,
      body: (request?.body as BodyInit | undefined) ?? null,
      redirect: "manual",
      signal,
    });
    return {
      status: res.status,
      location: res.headers.get("location") ?? undefined,
      contentType: res.headers.get("content-type") ?? undefined,
      discard: () => void res.body?.cancel().catch(() => {}),
      read: async (maxBytes, readSignal) => {
        const declared = Number(res.headers.get("content-length") ?? Number.NaN);
        if (Number.isFinite(declared) && declared > maxBytes) {
          void res.body?.cancel().catch(() => {});
          throw tooLarge(maxBytes);
        }
        return readCapped(res.body, maxBytes, readSignal);
      },
    };
  },
};

/** GETs a user-chosen URL under the policy. Throws SpecFetchError; never returns a non-2xx answer. */
export function safeFetch(input: string | URL, options: SafeFetchOptions = {}): Promise<FetchedDocument> {
  return fetchUnderPolicy(input, options, outboundTransport);
}

/** Vets a URL (no DNS on fetch runtimes unless `resolve` is given); throws `refused` for anything the policy does not allow. */
export { vetTarget } from "./policy.js";
