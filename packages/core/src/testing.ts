// Shared by the exported store conformance suites: a skip always carries its written reason.
import { isKitError } from "./errors.js";
export interface SkipGroup {
  reason: string;
  tests: string[];
}

/**
 * Resolves a test title against skip groups: the title to run it under (the reason written into a
 * skipped one's title, so every report shows why) and whether it is skipped.
 */
export function skipLookup(groups: readonly SkipGroup[] = []): (title: string) => { title: string; skipped: boolean } {
  const reasons = new Map<string, string>();
  for (const g of groups) for (const t of g.tests) reasons.set(t, g.reason);
  return (title) => {
    const reason = reasons.get(title);
    return reason === undefined ? { title, skipped: false } : { title: `${title} (skipped: ${reason})`, skipped: true };
  };
}

/**
 * Runs a store call with input no engine stores alike (NUL in text, a fraction or 1e20 as an integer
 * position): the store must either refuse it with a 400 KitError or answer normally. Any other failure
 * (PostgreSQL's `invalid byte sequence`, `invalid input syntax for type bigint`) would be a 500.
 */
export async function refusedOrAnswered<T>(op: () => Promise<T>): Promise<{ refused: true } | { refused: false; value: T }> {
  try {
    return { refused: false, value: await op() };
  } catch (e) {
    if (isKitError(e) && e.status === 400) return { refused: true };
    throw new Error(`expected a 400 KitError or an answer, got: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
}
