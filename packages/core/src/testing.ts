// Shared by the exported store conformance suites: a skip always carries its written reason.
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
