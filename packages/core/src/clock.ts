// Time is injected: bi-temporal, quota and rate-limit tests need to move it by hand.
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface ManualClock extends Clock {
  set(ms: number | string | Date): void;
  advance(ms: number): void;
}

export function manualClock(start: number | string | Date = 0): ManualClock {
  let t = new Date(start).getTime();
  return {
    now: () => t,
    set: (ms) => {
      t = new Date(ms).getTime();
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

export const iso = (ms: number): string => new Date(ms).toISOString();
