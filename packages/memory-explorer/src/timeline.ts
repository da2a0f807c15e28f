// The instants where what the graph shows can change, for the asOf (valid time) and knownAt (transaction
// time) sliders. Between two consecutive instants nothing changes, so a slider needs only these stops.
import type { Edge } from "./client.js";

const ms = (s: string | null): number | null => (s === null ? null : Date.parse(s));

/**
 * Sorted stops for one axis: every start and end of the edges on that axis, and `now` last (the default).
 * A stop at an end shows the state from that end on (docs/memory.md#time-two-axes: `asOf < tInvalid` is the valid side), so
 * moving one stop across a supersession flips the old fact to ended and the new one to valid.
 */
export function stops(edges: readonly Edge[], axis: "valid" | "known", now: number): number[] {
  const points = new Set<number>();
  for (const e of edges) {
    const [start, end] = axis === "valid" ? [ms(e.tValid), ms(e.tInvalid)] : [ms(e.tIngested), ms(e.tExpired)];
    if (start !== null && start < now) points.add(start);
    if (end !== null && end < now) points.add(end);
  }
  const sorted = [...points].sort((a, b) => a - b);
  // a stop before everything: the empty start of the axis
  if (sorted.length) sorted.unshift(sorted[0]! - 1);
  sorted.push(now);
  return sorted;
}

/** The stop at or before `t` (the state shown at `t`). */
export function stopIndex(list: readonly number[], t: number): number {
  let i = 0;
  while (i + 1 < list.length && list[i + 1]! <= t) i++;
  return i;
}

export const formatInstant = (t: number): string =>
  new Date(t)
    .toISOString()
    .replace("T", " ")
    .replace(/:\d\d\.\d{3}Z$/, " UTC");
