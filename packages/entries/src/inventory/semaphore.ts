// A counting semaphore: bounds how many spec submissions are fetched and catalogued at once.

/** At most `n` holders at once, the rest wait in arrival order. */
export function semaphore(n: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    else active++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
