// Request-body handling shared by every adapter: content type (415), size (413), JSON (400).
import { coreError, isKitError, type KitError } from "./errors.js";
import type { BodySource } from "./http.js";
import { refuseNulInBody } from "./text.js";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export function mediaType(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  if (contentType === "application/json") return contentType;
  const semi = contentType.indexOf(";");
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() || undefined;
}

const isJsonType = (t: string) => t === "application/json" || (t.startsWith("application/") && t.endsWith("+json"));

export function accepts(list: readonly string[], type: string): boolean {
  for (const a of list) if (a === type || a === "*/*" || (a === "application/json" && isJsonType(type))) return true;
  return false;
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

/** How a route takes its body: fixed per route, so built once. */
export interface BodyRules {
  /** `stream` bodies are never read here: `streamBody` (body-stream.ts) hands them to the handler. */
  mode: "json" | "raw" | "stream";
  accepts: readonly string[];
  limit: number;
}

/**
 * Reads and parses a body. `mode: "json"` parses JSON; `mode: "raw"` returns bytes for the route to
 * interpret. An empty body yields `value: undefined` and leaves the decision to the route's schema.
 */
export function readBody(
  source: BodySource,
  rules: BodyRules,
  contentType: string | undefined,
  contentLength: string | undefined,
): Promise<ReadBody> {
  if (source.kind !== "stream") return readHeldBody(source, rules, contentType, contentLength);
  const type = mediaType(contentType);
  return readRawBody(source, rules, contentLength).then(
    (raw) => parseBody(raw, type, rules),
    (e) => {
      throw bodyReadError(e);
    },
  );
}

/**
 * The hot path's first half (a body still on the wire): the bytes, with the declared and the actual
 * size checked. `parseBody` is the second half; a caller chains both in one step, and passes a
 * rejection through `bodyReadError`.
 */
export function readRawBody(
  source: Extract<BodySource, { kind: "stream" }>,
  rules: BodyRules,
  contentLength: string | undefined,
): Promise<Uint8Array> {
  try {
    checkDeclaredLength(rules, contentLength);
    return source.read(rules.limit);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** A failed read as the client should see it: our own 413, or a 400 for a broken stream. */
export function bodyReadError(e: unknown): KitError {
  return isKitError(e) ? e : coreError("invalid_request", { message: "could not read request body" });
}

function checkDeclaredLength(rules: BodyRules, contentLength: string | undefined): number | undefined {
  const declared = contentLength ? Number(contentLength) : undefined;
  if (declared !== undefined && Number.isFinite(declared) && declared > rules.limit) {
    throw coreError("payload_too_large", { details: { limit: rules.limit } });
  }
  return declared;
}

/** A body the host already read (a parser's result), or none. */
async function readHeldBody(
  source: Exclude<BodySource, { kind: "stream" }>,
  options: BodyRules,
  contentType: string | undefined,
  contentLength: string | undefined,
): Promise<ReadBody> {
  const type = mediaType(contentType);
  // checked before a host parser's result too: express.json() reading the body must not lift the limit
  const declared = checkDeclaredLength(options, contentLength);
  if (source.kind === "parsed") {
    const v = source.value;
    if (v instanceof Uint8Array || typeof v === "string") {
      const raw = typeof v === "string" ? new TextEncoder().encode(v) : v;
      return parseBody(raw, type, options);
    }
    // Only a JSON parser produces objects: the host already decoded it.
    if (type && !accepts(options.accepts, type)) throw coreError("unsupported_media_type", { details: { accepted: options.accepts } });
    // depth first: the size check below serialises recursively
    checkParsedShape(v);
    refuseNulInBody(v);
    // chunked, so no declared length: the re-serialised size (never above what was sent) still enforces the limit
    if (declared === undefined && serialisedSize(v) > options.limit)
      throw coreError("payload_too_large", { details: { limit: options.limit } });
    if (options.mode === "raw") {
      const raw = new TextEncoder().encode(JSON.stringify(v));
      return { value: v, raw, contentType: "application/json" };
    }
    return { value: v, raw: undefined, contentType: type };
  }
  return { value: undefined, raw: undefined, contentType: type };
}

function serialisedSize(v: unknown): number {
  try {
    return new TextEncoder().encode(JSON.stringify(v) ?? "").byteLength;
  } catch {
    // too deep to serialise: the route's schema decides
    return 0;
  }
}

/** Checks and parses bytes read off the wire: 413, 415, UTF-8, JSON, depth. */
export function parseBody(raw: Uint8Array, type: string | undefined, options: BodyRules): ReadBody {
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalidJson(e);
  }
  checkJsonShape(text, value);
  return { value, raw, contentType: type };
}

/** Deeper than this, a JSON body is refused: recursive code downstream (validation, storage) must not overflow its stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * Refuses what JSON.parse accepts but the kit must not store: nesting deeper than MAX_JSON_DEPTH,
 * strings holding lone UTF-16 surrogates (`"\ud800"`), which storage would silently turn into U+FFFD,
 * and NUL (`"\u0000"`), which PostgreSQL cannot store. Raw UTF-8 carries neither (the decoder is fatal
 * and JSON forbids raw control characters in strings), so only `\u` escapes need looking at.
 */
export function checkJsonShape(text: string, value: unknown): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > MAX_JSON_DEPTH) throw coreError("invalid_request", { message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` });
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  if (/\\u[dD][89a-fA-F]/.test(text) && hasLoneSurrogate(value)) {
    throw coreError("invalid_request", { message: "JSON string holds an unpaired UTF-16 surrogate" });
  }
  if (text.includes("\\u0000")) refuseNulInBody(value);
}

/** The same checks for a body a host parser already decoded (no text to scan). */
export function checkParsedShape(value: unknown, depth = 0): void {
  if (typeof value === "string") {
    if (!value.isWellFormed()) throw coreError("invalid_request", { message: "JSON string holds an unpaired UTF-16 surrogate" });
    return;
  }
  if (!value || typeof value !== "object") return;
  if (depth >= MAX_JSON_DEPTH) throw coreError("invalid_request", { message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` });
  for (const [k, x] of Object.entries(value)) {
    if (!k.isWellFormed()) throw coreError("invalid_request", { message: "JSON string holds an unpaired UTF-16 surrogate" });
    checkParsedShape(x, depth + 1);
  }
}

function hasLoneSurrogate(v: unknown): boolean {
  if (typeof v === "string") return !v.isWellFormed();
  if (Array.isArray(v)) return v.some(hasLoneSurrogate);
  if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) if (!k.isWellFormed() || hasLoneSurrogate(x)) return true;
  }
  return false;
}

/**
 * The 400 for a body that is not JSON. `details` has the shape of every other 400 (a list of
 * `{ path, message }`, the path empty: the whole body) and carries the parser's reason, so the same
 * bad body gets the same answer whether the kit or a host parser (`express.json()`) read it.
 */
export function invalidJson(parseError: unknown) {
  return coreError("invalid_json", { details: [{ path: "", message: (parseError as Error).message }] });
}
