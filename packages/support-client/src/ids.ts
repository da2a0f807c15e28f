// Client-generated identifiers: a persistent `cust_<UUID>` per end user and a `msg_<UUID>` per message.
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export const CUSTOMER_ID_KEY = "mountkit.support.customerId";
const CUSTOMER_ID = /^cust_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A UUID v4 from the platform's CSPRNG: opaque and non-guessable (docs/support.md#customers-and-products). */
const uuid = (): string => globalThis.crypto.randomUUID();

export const newCustomerId = (): string => `cust_${uuid()}`;
export const newClientMessageId = (): string => `msg_${uuid()}`;

/** A storage that lives as long as the process (Node, or a browser without localStorage). */
export function inMemoryStorage(): KeyValueStorage {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v) };
}

/** `localStorage` when the platform has one, else process memory. */
export function defaultStorage(): KeyValueStorage {
  try {
    const ls = (globalThis as { localStorage?: KeyValueStorage }).localStorage;
    if (ls) return ls;
  } catch {
    // access to localStorage can throw (privacy modes): fall back to memory
  }
  return inMemoryStorage();
}

/** The end user's customer id: read from storage, or generated once and stored. */
export function persistentCustomerId(storage: KeyValueStorage = defaultStorage(), key = CUSTOMER_ID_KEY): string {
  const existing = storage.getItem(key);
  if (existing && CUSTOMER_ID.test(existing)) return existing;
  const id = newCustomerId();
  storage.setItem(key, id);
  return id;
}

/** @deprecated Renamed `inMemoryStorage`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memoryStorage = inMemoryStorage;
