// Storing episodes: one, under an optional Idempotency-Key, or a batch of up to 100 answered item by item
// (docs/memory.md#idempotent-and-batch-ingest). The key is claimed in the store with the episode, so concurrent
// retries through any number of processes store one episode; a retry answers the first answer.
import type { Clock, IdGenerator } from "@mountkit/core";
import { isKitError } from "@mountkit/core";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { type Scope, scopeOf } from "./domain/scope.js";
import type { EpisodeRecord } from "./domain/types.js";
import { type EpisodeJson, episodeJson, INSTANT_FORMS, parseInstant } from "./domain/wire.js";
import { memoryError } from "./errors.js";
import { EXTRACTION_QUEUE } from "./pipeline/run.js";
import type { MemoryStore } from "./store/types.js";

/** How long a key answers its first episode: 24 hours, as Stripe keeps its keys. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface CreateEpisodeInput extends Scope {
  content: string;
  metadata?: Record<string, unknown>;
  /** Epoch ms; default: `metadata.occurredAt` when present (`YYYY-MM-DD` or ISO-8601, else a 400), else now. */
  occurredAt?: number;
}

/** What storing episodes reads (a part of MemoryApiDeps). */
export interface IngestDeps {
  store: MemoryStore;
  clock: Clock;
  ids: IdGenerator;
  onEnqueued?: () => void;
  maxAttempts?: number;
  /** How long an idempotency key answers its first episode; default IDEMPOTENCY_TTL_MS. */
  idempotencyTtlMs?: number;
}

/** One item's answer in a batch. */
export type BatchOutcome =
  | { status: "accepted" | "duplicate"; code: 202; id: string; episode: EpisodeJson }
  | { status: "error"; code: number; error: { error: string; details?: unknown } };

/**
 * The episode's reference time: `occurredAt`, else `metadata.occurredAt` read as the wire reads the
 * top-level field (a `{content, metadata}` request carries its time there), else now. A metadata value
 * that is present but not such a date answers 400, as the top-level field would.
 */
function referenceTime(input: CreateEpisodeInput, now: number): number {
  if (input.occurredAt !== undefined) return input.occurredAt;
  const m = input.metadata?.occurredAt;
  if (m === undefined || m === null) return now;
  const t = typeof m === "string" && m.length <= 64 ? parseInstant(m, { endOfDay: false }) : null;
  if (t === null)
    throw memoryError("invalid_request", {
      message: `invalid body: metadata.occurredAt: ${INSTANT_FORMS}`,
      details: [{ path: "metadata.occurredAt", message: INSTANT_FORMS }],
    });
  return t;
}

/** JSON with object keys sorted, so the same request serialised in another key order has the same fingerprint. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

/** Digest of what a request asks to store: a key reused with another digest answers 422. */
export function requestFingerprint(input: CreateEpisodeInput): string {
  const { content, metadata, occurredAt, userId, agentId, sessionId } = input;
  const canonical = canonicalJson({
    content,
    metadata: metadata ?? null,
    occurredAt: occurredAt ?? null,
    userId: userId ?? null,
    agentId: agentId ?? null,
    sessionId: sessionId ?? null,
  });
  return bytesToHex(sha256(utf8ToBytes(canonical)));
}

/**
 * An `Idempotency-Key` header's key: a structured-field string as the IETF draft writes it (`"abc"`) or the bare
 * token Stripe's clients send (`abc`); 1-255 printable ASCII characters. Undefined without a header; 400 when invalid.
 */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const raw = header.trim();
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(raw);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, "$1") : raw;
  if (!/^[\x20-\x7e]{1,255}$/.test(key))
    throw memoryError("invalid_request", {
      message: "invalid Idempotency-Key header: 1-255 printable ASCII characters",
      details: [{ path: "Idempotency-Key", message: "must be 1-255 printable ASCII characters" }],
    });
  return key;
}

/** The episode as it was accepted: the first answer's body, whatever extraction did since. */
const asAccepted = (e: EpisodeRecord): EpisodeRecord => ({
  ...e,
  status: "queued",
  error: null,
  entityIds: [],
  edgeIds: [],
  processedAt: null,
});

export function ingestCalls(deps: IngestDeps) {
  const { store, clock, ids } = deps;
  const ttl = deps.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS;

  /** Stores one episode with its job; with a key, answers the key's first episode instead when it holds one. */
  async function storeOne(brainId: string, input: CreateEpisodeInput, key: string | undefined) {
    const now = clock.now();
    const episode: EpisodeRecord = {
      id: ids("ep"),
      brainId,
      content: input.content,
      metadata: input.metadata ?? {},
      occurredAt: referenceTime(input, now),
      createdAt: now,
      status: "queued",
      error: null,
      entityIds: [],
      edgeIds: [],
      processedAt: null,
      ...scopeOf(input),
    };
    const fingerprint = key === undefined ? "" : requestFingerprint(input);
    const out = await store.createEpisode({
      episode,
      job: {
        id: ids("job"),
        queue: EXTRACTION_QUEUE,
        payload: { brainId, episodeId: episode.id },
        maxAttempts: deps.maxAttempts ?? 5,
        groupKey: brainId,
      },
      ...(key === undefined ? {} : { idempotency: { key, fingerprint, expiresAt: now + ttl } }),
    });
    if (out && "duplicate" in out) {
      // the IETF draft's answer to a key reused with another payload (Stripe answers 400 to the same mistake)
      if (out.fingerprint !== fingerprint)
        throw memoryError("idempotency_key_reused", {
          details: [{ path: "Idempotency-Key", message: "this key was first used with another request body" }],
        });
      return { episode: episodeJson(asAccepted(out.duplicate)), replayed: true };
    }
    return { episode: episodeJson(episode), replayed: false };
  }

  return {
    /**
     * Stores an episode (extraction queued). With `idempotencyKey`: the first call stores it; every later call
     * with the key (until it expires) stores nothing and answers the first episode as accepted, `replayed: true`;
     * a later call with another body throws 422 `idempotency_key_reused`.
     */
    async ingestEpisode(brainId: string, input: CreateEpisodeInput, options: { idempotencyKey?: string } = {}) {
      const r = await storeOne(brainId, input, options.idempotencyKey);
      if (!r.replayed) deps.onEnqueued?.();
      return r;
    },

    /**
     * Stores episodes in order, each answered on its own: accepted, duplicate (its key's first episode) or its 4xx
     * error; a failing item stores nothing and the others are stored. A storage failure throws (the items before it
     * are stored: retry with keys).
     */
    async createEpisodes(brainId: string, items: ReadonlyArray<CreateEpisodeInput & { idempotencyKey?: string }>): Promise<BatchOutcome[]> {
      const out: BatchOutcome[] = [];
      try {
        for (const { idempotencyKey, ...input } of items) {
          try {
            const r = await storeOne(brainId, input, idempotencyKey);
            out.push({ status: r.replayed ? "duplicate" : "accepted", code: 202, id: r.episode.id, episode: r.episode });
          } catch (err) {
            if (!isKitError(err) || err.status >= 500) throw err;
            out.push({
              status: "error",
              code: err.status,
              error: err.details === undefined ? { error: err.message } : { error: err.message, details: err.details },
            });
          }
        }
      } finally {
        if (out.some((o) => o.status === "accepted")) deps.onEnqueued?.();
      }
      return out;
    },
  };
}
