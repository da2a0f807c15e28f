// The BlobStore conformance cases (attachments/types.ts): what every blob store, in memory, on files, in SQL or a
// host's object store, must do for the attachments to be served whole and deleted for good.
import { expect } from "vitest";
import type { BlobStore } from "../attachments/types.js";
import { uid } from "./fixtures.js";

/** Registers one test that runs on a fresh blob store (made by the suite's factory, closed after it). */
export type BlobTest = (title: string, fn: (blobs: BlobStore) => Promise<void>) => void;

/** Bytes of every value 0-255, `n` long, starting at `seed`: a store that treats them as text or truncates at NUL fails. */
export function pattern(n: number, seed = 0): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
}

/** Compares by bytes, whatever Uint8Array subclass a driver answers (Buffer), naming the first byte that differs. */
function sameBytes(got: Uint8Array | null, want: Uint8Array) {
  expect(got).not.toBeNull();
  expect(got).toBeInstanceOf(Uint8Array);
  expect(got!.byteLength).toBe(want.byteLength);
  let first = -1;
  for (let i = 0; i < want.byteLength; i++)
    if (got![i] !== want[i]) {
      first = i;
      break;
    }
  expect(first, "the first byte that differs").toBe(-1);
}

export function blobTests(test: BlobTest): void {
  test("get answers null for a key never stored", async (blobs) => {
    expect(await blobs.get(uid("att"))).toBeNull();
  });

  test("put then get answers the same bytes, every byte value included", async (blobs) => {
    const key = uid("att");
    const data = pattern(1024);
    await blobs.put(key, data);
    sameBytes(await blobs.get(key), data);
  });

  test("a blob of several MiB comes back whole", async (blobs) => {
    const key = uid("att");
    const data = pattern(3 * 1024 * 1024 + 17, 5);
    await blobs.put(key, data);
    sameBytes(await blobs.get(key), data);
  });

  test("the store keeps its own copy: changing the array given to put or answered by get changes nothing stored", async (blobs) => {
    const key = uid("att");
    const data = pattern(64);
    const kept = data.slice();
    await blobs.put(key, data);
    data.fill(0);
    const first = await blobs.get(key);
    sameBytes(first, kept);
    first!.fill(1);
    sameBytes(await blobs.get(key), kept);
  });

  test("put replaces what a key holds", async (blobs) => {
    const key = uid("att");
    await blobs.put(key, pattern(5000, 1));
    await blobs.put(key, pattern(10, 2));
    sameBytes(await blobs.get(key), pattern(10, 2));
  });

  test("keys are independent: a put or delete of one leaves the others", async (blobs) => {
    const [a, b] = [uid("att"), uid("att")];
    await blobs.put(a, pattern(100, 3));
    await blobs.put(b, pattern(200, 4));
    await blobs.delete(a);
    expect(await blobs.get(a)).toBeNull();
    sameBytes(await blobs.get(b), pattern(200, 4));
  });

  test("delete removes the bytes, and deleting a missing key (twice, or never stored) is no error", async (blobs) => {
    const key = uid("att");
    await blobs.put(key, pattern(10));
    await blobs.delete(key);
    expect(await blobs.get(key)).toBeNull();
    await expect(blobs.delete(key)).resolves.toBeUndefined();
    await expect(blobs.delete(uid("att"))).resolves.toBeUndefined();
  });

  test("a key deleted and stored again answers the new bytes", async (blobs) => {
    const key = uid("att");
    await blobs.put(key, pattern(10, 1));
    await blobs.delete(key);
    await blobs.put(key, pattern(20, 2));
    sameBytes(await blobs.get(key), pattern(20, 2));
  });

  test("every shape of service id is a key: letters, digits, _ and -", async (blobs) => {
    for (const key of [`att_${"A1b2C3d4E5f6G7h8I9j0K"}`, "x", "a-b_c-D_9", `k_${"z".repeat(100)}`]) {
      await blobs.put(key, pattern(3, key.length));
      sameBytes(await blobs.get(key), pattern(3, key.length));
      await blobs.delete(key);
      expect(await blobs.get(key)).toBeNull();
    }
  });

  test("concurrent puts of many keys all land", async (blobs) => {
    const keys = Array.from({ length: 24 }, () => uid("att"));
    await Promise.all(keys.map((k, i) => blobs.put(k, pattern(1000 + i, i))));
    const got = await Promise.all(keys.map((k) => blobs.get(k)));
    for (const [i, g] of got.entries()) sameBytes(g, pattern(1000 + i, i));
  });

  test("concurrent puts of one key leave one of the values whole, never a mix", async (blobs) => {
    const key = uid("att");
    const values = [pattern(200_000, 1), pattern(100_000, 2), pattern(150_000, 3)];
    await Promise.all(values.map((v) => blobs.put(key, v)));
    const got = await blobs.get(key);
    expect(got).not.toBeNull();
    const match = values.find((v) => v.byteLength === got!.byteLength);
    expect(match, `a length no put wrote: ${got!.byteLength}`).toBeDefined();
    sameBytes(got, match!);
  });

  test("reads during a replacing put answer the old or the new bytes whole", async (blobs) => {
    const key = uid("att");
    const old = pattern(500_000, 7);
    const next = pattern(700_000, 8);
    await blobs.put(key, old);
    const writing = blobs.put(key, next);
    const reads = await Promise.all(Array.from({ length: 8 }, () => blobs.get(key)));
    await writing;
    for (const r of reads) sameBytes(r, r?.byteLength === next.byteLength ? next : old);
    sameBytes(await blobs.get(key), next);
  });
}
