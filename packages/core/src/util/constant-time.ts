// Constant-time string comparison for secrets (bearer tokens, webhook signatures). WebCrypto-free and
// node:-free, so it runs on every fetch runtime.
const encoder = new TextEncoder();

/** Compares in time that depends only on the expected token's length, never on where they differ. */
export function constantTimeEqual(given: string, expected: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i]!;
  return diff === 0;
}
