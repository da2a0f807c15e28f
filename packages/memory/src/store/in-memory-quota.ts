// In-process QuotaHolds: used units and live holds per (key, period) in maps. One process only; the SQL
// stores keep the same counts in the database for every process.
import type { QuotaHolds } from "./types.js";

export function inMemoryQuotaHolds(): QuotaHolds {
  const used = new Map<string, number>();
  const holds = new Map<string, Map<string, number>>();
  const slot = (key: string, period: string) => `${period}\u0000${key}`;
  return {
    async hold({ key, period, limit, id, now, ttlMs }) {
      const k = slot(key, period);
      const mine = holds.get(k) ?? new Map<string, number>();
      holds.set(k, mine);
      for (const [h, expiresAt] of mine) if (expiresAt <= now) mine.delete(h);
      const u = used.get(k) ?? 0;
      if (u >= limit) return { state: "exhausted", used: u };
      if (u + mine.size >= limit) return { state: "busy", used: u };
      mine.set(id, now + ttlMs);
      return { state: "held", used: u };
    },
    async settle({ key, period, id, success, limit }) {
      const k = slot(key, period);
      const held = holds.get(k)?.delete(id) ?? false;
      const u = used.get(k) ?? 0;
      // a hold that lapsed (its call outlived the ttl) still counts its success while room is left
      if (success && (held || u < limit)) used.set(k, u + 1);
      return { used: used.get(k) ?? 0 };
    },
  };
}

/** @deprecated Renamed `inMemoryQuotaHolds`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memoryQuotaHolds = inMemoryQuotaHolds;
