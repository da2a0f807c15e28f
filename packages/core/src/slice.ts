// Time slices for long work that stays on the host's event loop (memory's resolution, deduplication and
// contradiction; a large OpenAPI document's YAML): the work gives the loop a turn every few milliseconds, so the
// host's own requests never wait behind it (issue #24: one 50 KB episode held the loop for a second).

/** Work between two turns of the event loop. */
export const SLICE_MS = 8;

/** A macrotask turn: `setImmediate` on Node, a zero timeout on runtimes without it. */
const turn = () =>
  new Promise<void>((resolve) => {
    if (typeof setImmediate === "function") setImmediate(resolve);
    else setTimeout(resolve, 0);
  });

/** Returns a function to await between units of work: it yields to the event loop once a slice is used up. */
export function timeSlicer(sliceMs = SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await turn();
    since = performance.now();
  };
}
