// A request body handed to the handler as it arrives (`bodyMode: "stream"`): content type and declared length checked
// up front, the byte limit counted again over the chunks, every read failure turned into the kit's own error.
import { accepts, type BodyRules, bodyReadError, mediaType } from "./body.js";
import { coreError } from "./errors.js";
import type { BodySource } from "./http.js";

const encoder = new TextEncoder();

function unsupported(type: string | undefined, rules: BodyRules) {
  return coreError("unsupported_media_type", {
    message: `content type must be ${rules.accepts.join(" or ")}`,
    details: { received: type ?? null, accepted: rules.accepts },
  });
}

/** What a source yields, before the checks: the adapter's chunks, its whole-body read, or a host parser's result. */
async function* sourceChunks(source: BodySource, limit: number): AsyncGenerator<Uint8Array> {
  if (source.kind === "none") return;
  if (source.kind === "stream") {
    if (source.chunks) yield* source.chunks(limit);
    else yield await source.read(limit);
    return;
  }
  const v = source.value;
  if (v === undefined || v === null) return;
  yield v instanceof Uint8Array ? v : encoder.encode(typeof v === "string" ? v : JSON.stringify(v));
}

/**
 * The body of a `bodyMode: "stream"` route as an async iterable of byte chunks. Throws at once (before the
 * handler runs) for a content type the route does not accept (415) or a declared length over its limit (413);
 * while iterated, throws the 413 past the limit, the adapter's 408 past the body deadline, and a 400 for a
 * broken stream. A body with no content type is refused (415) at its first byte; an empty one yields nothing.
 */
export function streamBody(
  source: BodySource,
  rules: BodyRules,
  contentType: string | undefined,
  contentLength: string | undefined,
): AsyncIterable<Uint8Array> {
  const type = mediaType(contentType);
  if (type && !accepts(rules.accepts, type)) throw unsupported(type, rules);
  const declared = contentLength ? Number(contentLength) : undefined;
  if (declared !== undefined && Number.isFinite(declared) && declared > rules.limit)
    throw coreError("payload_too_large", { details: { limit: rules.limit } });
  return checkedChunks(source, rules, type);
}

async function* checkedChunks(source: BodySource, rules: BodyRules, type: string | undefined): AsyncGenerator<Uint8Array> {
  const it = sourceChunks(source, rules.limit);
  let total = 0;
  try {
    for (;;) {
      let r: IteratorResult<Uint8Array>;
      try {
        r = await it.next();
      } catch (e) {
        throw bodyReadError(e);
      }
      if (r.done) return;
      if (r.value.byteLength === 0) continue;
      if (!type) throw unsupported(type, rules);
      total += r.value.byteLength;
      // the adapter counts too; this holds for any source (a host parser's result, a whole-body read)
      if (total > rules.limit) throw coreError("payload_too_large", { details: { limit: rules.limit } });
      yield r.value;
    }
  } finally {
    // the handler stopped early (a bad line) or a check failed: the adapter discards the rest
    await it.return(undefined).catch(() => {});
  }
}
