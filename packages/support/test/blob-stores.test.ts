// The BlobStore conformance suite on the in-memory store and the filesystem store (SQLite and PostgreSQL run it in
// packages/sql/test/blob-store.test.ts), plus what only the filesystem store promises: its layout, the keys it refuses,
// temp files, and several processes' stores on one directory.
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { inMemoryBlobStore } from "@mountkit/support";
import { fileBlobStore } from "@mountkit/support/node";
import { describeBlobStore } from "@mountkit/support/testing";
import { afterAll, describe, expect, it } from "vitest";

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), "mk-blobs-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every file under `dir`, relative, with `/` separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
}

describeBlobStore("in memory", async () => ({ blobs: inMemoryBlobStore() }));
describeBlobStore("files", async () => ({ blobs: fileBlobStore({ root: join(freshDir(), "support-attachments") }) }));
describeBlobStore("files without fsync", async () => ({ blobs: fileBlobStore({ root: freshDir(), fsync: false }) }));

describe("fileBlobStore", () => {
  it("stores each key as one file in two levels of hashed directories, named by the key alone", async () => {
    const root = freshDir();
    const blobs = fileBlobStore({ root });
    await blobs.put("att_one", new Uint8Array([1]));
    await blobs.put("att_two", new Uint8Array([2]));
    const files = filesUnder(root);
    expect(files).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^[0-9a-f]{2}\/[0-9a-f]{2}\/att_(one|two)$/);
    expect(readdirSync(join(root, "tmp"))).toEqual([]);
    // private to the user the server runs as
    expect(statSync(join(root, files[0]!)).mode & 0o077).toBe(0);
  });

  it("refuses every key that is not letters, digits, _ or - before touching the disk", async () => {
    const root = freshDir();
    const blobs = fileBlobStore({ root: join(root, "store") });
    writeFileSync(join(root, "secret"), "do not read");
    const bad = ["../secret", "..", ".", "", "a/b", "a\\b", "/etc/passwd", "tmp/../x", "a\0b", "é", "x".repeat(201), "a b", "a.b"];
    for (const key of bad) {
      await expect(blobs.put(key, new Uint8Array([1])), key).rejects.toThrow(TypeError);
      await expect(blobs.get(key), key).rejects.toThrow(TypeError);
      await expect(blobs.delete(key), key).rejects.toThrow(TypeError);
    }
    expect(filesUnder(root)).toEqual(["secret"]);
  });

  it("a put that fails removes its temp file and leaves the old bytes", async () => {
    const root = freshDir();
    const blobs = fileBlobStore({ root });
    await blobs.put("k", new Uint8Array([1, 2, 3]));
    // bytes the write refuses once the temp file is open
    await expect(blobs.put("k", { length: 3 } as unknown as Uint8Array)).rejects.toThrow();
    expect(readdirSync(join(root, "tmp"))).toEqual([]);
    expect([...(await blobs.get("k"))!]).toEqual([1, 2, 3]);
  });

  it("at start removes temp files of processes that are gone and of long ago, and keeps a running process's", async () => {
    const root = freshDir();
    const tmp = join(root, "tmp");
    await fileBlobStore({ root }).ready;
    // pid 2^22+1 is above Linux's pid_max default ceiling; process.ppid runs (the test runner's parent)
    const dead = `${2 ** 22 + 1}-0123456789abcdef`;
    const running = `${process.ppid}-fedcba9876543210`;
    const ancient = `${process.ppid}-00000000000000aa`;
    for (const n of [dead, running, ancient]) writeFileSync(join(tmp, n), "partial");
    const old = new Date(Date.now() - 2 * 86_400_000);
    utimesSync(join(tmp, ancient), old, old);
    const again = fileBlobStore({ root });
    expect(await again.ready).toBe(2);
    expect(readdirSync(tmp)).toEqual([running]);
  });

  it("two stores on one directory (two processes' view) see each other's writes and deletes", async () => {
    const root = freshDir();
    const a = fileBlobStore({ root });
    const b = fileBlobStore({ root });
    await a.put("shared", new Uint8Array([9, 9]));
    expect([...(await b.get("shared"))!]).toEqual([9, 9]);
    await b.delete("shared");
    expect(await a.get("shared")).toBeNull();
  });

  it("a root it cannot create makes every call fail with the reason", async () => {
    const root = freshDir();
    writeFileSync(join(root, "file"), "");
    const blobs = fileBlobStore({ root: join(root, "file", "below") });
    await expect(blobs.ready).rejects.toThrow(/ENOTDIR|EEXIST/);
    await expect(blobs.get("k")).rejects.toThrow(/ENOTDIR|EEXIST/);
  });
});
