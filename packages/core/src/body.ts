// Request-body handling shared by every adapter: content type (415), size (413), JSON (400).
import { coreError, isKitError } from "./errors.js";
import type { BodySource } from "./http.js";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export function mediaType(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  return contentType.split(";")[0]!.trim().toLowerCase() || undefined;
}

const isJsonType = (t: string) => t === "application/json" || (t.startsWith("application/") && t.endsWith("+json"));

export function accepts(list: readonly string[], type: string): boolean {
  return list.some((a) => a === type || a === "*/*" || (a === "application/json" && isJsonType(type)));
}

export interface ReadBody {
  /** Parsed JSON, or undefined when the body was empty. */
  value: unknown;
  raw: Uint8Array | undefined;
  contentType: string | undefined;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw coreError("invalid_request", { message: "request body is not valid UTF-8" });
  }
}

/**
 * Reads and parses a body. `mode: "json"` parses JSON; `mode: "raw"` returns bytes for the route to
 * interpret. An empty body yields `value: undefined` and leaves the decision to the route's schema.
 */
export async function readBody(
  source: BodySource,
  options: {
    mode: "json" | "raw";
    accepts: readonly string[];
    limit: number;
    contentType: string | undefined;
    contentLength: string | undefined;
  },
): Promise<ReadBody> {
  const type = mediaType(options.contentType);
  // checked before a host parser's result too: express.json() reading the body must not lift the limit
  const declared = options.contentLength ? Number(options.contentLength) : undefined;
  if (declared !== undefined && Number.isFinite(declared) && declared > options.limit) {
    throw coreError("payload_too_large", { details: { limit: options.limit } });
  }
  if (source.kind === "parsed") {
    const v = source.value;
    if (v instanceof Uint8Array || typeof v === "string") {
      const raw = typeof v === "string" ? new TextEncoder().encode(v) : v;
      return finish(raw, type, options);
    }
    // Only a JSON parser produces objects: the host already decoded it.
    if (type && !accepts(options.accepts, type)) throw coreError("unsupported_media_type", { details: { accepted: options.accepts } });
    // chunked, so no declared length: the re-serialised size (never above what was sent) still enforces the limit
    if (declared === undefined && serialisedSize(v) > options.limit)
      throw coreError("payload_too_large", { details: { limit: options.limit } });
    if (options.mode === "raw") {
      const raw = new TextEncoder().encode(JSON.stringify(v));
      return { value: v, raw, contentType: "application/json" };
    }
    return { value: v, raw: undefined, contentType: type };
  }
  if (source.kind === "none") return { value: undefined, raw: undefined, contentType: type };
  let raw: Uint8Array;
  try {
    raw = await source.read(options.limit);
  } catch (e) {
    if (isKitError(e)) throw e;
    throw coreError("invalid_request", { message: "could not read request body" });
  }
  return finish(raw, type, options);
}

function serialisedSize(v: unknown): number {
  try {
    return new TextEncoder().encode(JSON.stringify(v) ?? "").byteLength;
  } catch {
    // too deep to serialise: the route's schema decides
    return 0;
  }
}

function finish(
  raw: Uint8Array,
  type: string | undefined,
  options: { mode: "json" | "raw"; accepts: readonly string[]; limit: number },
): ReadBody {
  if (raw.byteLength > options.limit) throw coreError("payload_too_large", { details: { limit: options.limit } });
  if (raw.byteLength === 0) return { value: undefined, raw: undefined, contentType: type };
  if (!type || !accepts(options.accepts, type)) {
    throw coreError("unsupported_media_type", {
      message: `content type must be ${options.accepts.join(" or ")}`,
      details: { received: type ?? null, accepted: options.accepts },
    });
  }
  if (options.mode === "raw") return { value: undefined, raw, contentType: type };
  const text = decodeUtf8(raw);
  try {
    return { value: JSON.parse(text), raw, contentType: type };
  } catch (e) {
    throw coreError("invalid_json", { details: { reason: (e as Error).message } });
  }
}
