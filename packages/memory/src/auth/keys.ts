// API keys: one key authorises exactly one brain. Only a SHA-256 hash is stored; the secret is shown
// once at creation. Hosts create and revoke keys through these functions or the CLI.
import { base64url, type Clock, type IdGenerator, randomIds, systemClock } from "@mountkit/core";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import type { ApiKeyRecord } from "../domain/types.js";
import type { MemoryStore } from "../store/types.js";

const KEY_PREFIX = "mk_";
const BRAIN_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Lower-case hex SHA-256 of the key's UTF-8 bytes, the same as node:crypto's, on every runtime and synchronously
 * (Web Crypto's digest is async only, and key lookups are sync): @noble/hashes, audited and dependency-free.
 */
export const hashApiKey = (key: string): string => bytesToHex(sha256(utf8ToBytes(key)));

/** A new random secret: `mk_` + 43 URL-safe characters (256 bits). */
export const generateApiKey = (): string => `${KEY_PREFIX}${base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)))}`;

export interface KeyDeps {
  clock?: Clock;
  ids?: IdGenerator;
}

export function assertBrainId(brainId: string): void {
  if (!BRAIN_ID.test(brainId)) throw new Error(`invalid brain id "${brainId}": use 1-64 letters, digits, '.', '_' or '-'`);
}

/**
 * Registers `key` (generated when omitted) for `brainId`, creating the brain when needed.
 * Returns the secret (only time it is available) and the stored record.
 */
export async function createApiKey(
  store: MemoryStore,
  input: { brainId: string; key?: string; label?: string | null },
  deps: KeyDeps = {},
): Promise<{ key: string; record: ApiKeyRecord }> {
  assertBrainId(input.brainId);
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIds;
  const key = input.key ?? generateApiKey();
  if (key.length < 16) throw new Error("an API key must have at least 16 characters");
  const now = clock.now();
  await store.createBrain({ brain: { id: input.brainId, name: input.brainId, createdAt: now } });
  const hash = hashApiKey(key);
  const existing = await store.findApiKey({ hash });
  if (existing) {
    if (existing.brainId !== input.brainId) throw new Error("this key is already registered for another brain");
    return { key, record: existing };
  }
  const record: ApiKeyRecord = {
    id: ids("key"),
    brainId: input.brainId,
    hash,
    prefix: key.slice(0, 8),
    label: input.label ?? null,
    createdAt: now,
    revokedAt: null,
  };
  try {
    await store.createApiKey({ key: record });
  } catch (err) {
    // another process sharing the database registered the same key at the same moment (concurrent start)
    const raced = await store.findApiKey({ hash });
    if (raced && raced.brainId === input.brainId) return { key, record: raced };
    throw err;
  }
  return { key, record };
}

export async function revokeApiKey(store: MemoryStore, id: string, deps: KeyDeps = {}): Promise<boolean> {
  return store.revokeApiKey({ id, now: (deps.clock ?? systemClock).now() });
}

/** The brain an active key authorises, or null. */
export async function brainForKey(store: MemoryStore, key: string): Promise<string | null> {
  if (!key) return null;
  const record = await store.findApiKey({ hash: hashApiKey(key) });
  return record && record.revokedAt === null ? record.brainId : null;
}

/** Parses `key=brain,key=brain` (MEMORY_API_KEYS). */
export function parseKeyList(value: string): Array<{ key: string; brainId: string }> {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const i = pair.lastIndexOf("=");
      if (i <= 0 || i === pair.length - 1) throw new Error(`invalid key entry "${pair.slice(0, 6)}...": expected key=brain`);
      return { key: pair.slice(0, i).trim(), brainId: pair.slice(i + 1).trim() };
    });
}
