// The filesystem BlobStore (`@mountkit/support/node`): attachment bytes as files under one directory (the example
// server's `<DATA_DIR>/support-attachments`), written atomically so no reader ever sees part of a file, and safe for
// several processes of one machine sharing the directory (docs/support.md#blob-stores).
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { BlobStore } from "./types.js";

export interface FileBlobStoreOptions {
  /** The directory that holds the files; created (mode 0700) when missing. */
  root: string;
  /**
   * A temp file left by a write that never finished is removed at start when its process is gone; one older than this
   * (ms, default 1 day) is removed whatever its process (the pid may have been reused).
   */
  staleTempMs?: number;
  /** fsync each file and its directory before a put resolves (default true); off only where losing recent writes to a power cut is fine (tests). */
  fsync?: boolean;
}

export interface FileBlobStore extends BlobStore {
  /** The absolute directory. */
  readonly root: string;
  /** Settles once the directory exists and stale temp files of earlier processes are removed; answers how many were. */
  readonly ready: Promise<number>;
  /** Removes temp files of processes that are gone (what `ready` ran at start); answers how many. */
  cleanTemp(): Promise<number>;
}

/** The service's ids: letters, digits, `_` and `-`. Nothing else ever becomes part of a path. */
const KEY = /^[A-Za-z0-9_-]{1,200}$/;
/** Temp files: `<pid>-<random hex>`, so a later start can tell whether their writer still runs. */
const TEMP = /^(\d+)-[0-9a-f]{16}$/;
const TEMP_DIR = "tmp";
const DAY = 86_400_000;

const code = (e: unknown) => (e as NodeJS.ErrnoException | null)?.code;

function checkedKey(key: string): string {
  if (typeof key !== "string" || !KEY.test(key))
    throw new TypeError(`blob key must be 1-200 letters, digits, _ or -: ${JSON.stringify(key)}`);
  return key;
}

/** Whether a process with this pid runs on this machine (EPERM: it runs under another user). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return code(e) === "EPERM";
  }
}

/** fsync of a directory makes a rename in it durable; platforms that cannot (Windows) only lose that guarantee. */
async function syncDir(dir: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(dir, "r");
    await fh.sync();
  } catch (e) {
    if (!["EISDIR", "EPERM", "EINVAL", "EBADF", "EACCES"].includes(code(e) ?? "")) throw e;
  } finally {
    await fh?.close();
  }
}

/**
 * Blobs as files: `<root>/<aa>/<bb>/<key>`, where `aa/bb` are the first four hex digits of the key's SHA-256 (so the
 * service's time-ordered ids spread over 65,536 directories). A put writes `<root>/tmp/<pid>-<random>` (created
 * exclusively), fsyncs it, renames it over the final name (atomic on one filesystem) and fsyncs the directory: a
 * reader sees the old file or the new one, whole, and a write killed half way leaves only a temp file, removed at
 * the next start. Keys outside `[A-Za-z0-9_-]{1,200}` throw a TypeError, so no path ever holds user input.
 */
export function fileBlobStore(options: FileBlobStoreOptions): FileBlobStore {
  if (!options?.root) throw new TypeError("fileBlobStore: root is required");
  const root = resolve(options.root);
  const tmp = join(root, TEMP_DIR);
  const staleMs = options.staleTempMs ?? DAY;
  const durable = options.fsync ?? true;

  const pathOf = (key: string) => {
    const h = createHash("sha256").update(checkedKey(key)).digest("hex");
    const dir = join(root, h.slice(0, 2), h.slice(2, 4));
    return { dir, file: join(dir, key) };
  };

  async function cleanTemp(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(tmp);
    } catch (e) {
      if (code(e) === "ENOENT") return 0;
      throw e;
    }
    let removed = 0;
    for (const name of names) {
      const m = TEMP.exec(name);
      const path = join(tmp, name);
      let old = false;
      try {
        old = Date.now() - (await stat(path)).mtimeMs > staleMs;
      } catch {
        continue; // gone already: its writer renamed it, or another process cleaned it
      }
      if (old || (m && !alive(Number(m[1])))) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  const ready = (async () => {
    await mkdir(tmp, { recursive: true, mode: 0o700 });
    return cleanTemp();
  })();
  // a failed start is reported by every call; this only keeps an unawaited `ready` from being an unhandled rejection
  ready.catch(() => {});

  return {
    root,
    ready,
    cleanTemp,
    async put(key, data) {
      const { dir, file } = pathOf(key);
      await ready;
      const temp = join(tmp, `${process.pid}-${randomBytes(8).toString("hex")}`);
      try {
        const fh = await open(temp, "wx", 0o600);
        try {
          await fh.writeFile(data);
          if (durable) await fh.sync();
        } finally {
          await fh.close();
        }
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await rename(temp, file);
      } catch (e) {
        await rm(temp, { force: true });
        throw e;
      }
      if (durable) await syncDir(dir);
    },
    async get(key) {
      const { file } = pathOf(key);
      await ready;
      try {
        const b = await readFile(file);
        return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      } catch (e) {
        if (code(e) === "ENOENT") return null;
        throw e;
      }
    },
    async delete(key) {
      const { dir, file } = pathOf(key);
      await ready;
      await rm(file, { force: true });
      // empty shard directories stay: removing one could race another process's put between its mkdir and rename
      if (durable) await syncDir(dir).catch((e) => (code(e) === "ENOENT" ? undefined : Promise.reject(e)));
    },
  };
}
