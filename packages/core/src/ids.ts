// Id generation, injected so tests can make ids deterministic.
import { customAlphabet } from "nanoid";

export type IdGenerator = (prefix?: string) => string;

const alnum = customAlphabet("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 21);

/** Random, URL-safe, non-guessable ids: `prefix_` + 21 alphanumerics. */
export const randomIds: IdGenerator = (prefix) => (prefix ? `${prefix}_${alnum()}` : alnum());

/** Deterministic ids for tests: `prefix_000001`, ... */
export function sequentialIds(start = 1): IdGenerator {
  let n = start;
  return (prefix) => {
    const id = String(n++).padStart(6, "0");
    return prefix ? `${prefix}_${id}` : id;
  };
}
