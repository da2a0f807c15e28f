// The filesystem blob store killed mid-write (a real child process, SIGKILL): no reader, during the writes or after,
// ever gets part of a file, and the temp file the dead write left is removed when the next store starts on the directory.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fileBlobStore } from "@mountkit/support/node";
import { afterAll, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../..", import.meta.url));
const child = fileURLToPath(new URL("./blob-writer-child.ts", import.meta.url));
const SIZE = 4 * 1024 * 1024;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A blob the child wrote whole: SIZE bytes, all one value from 1 to 250. */
function whole(b: Uint8Array | null, label: string) {
  expect(b, label).not.toBeNull();
  expect(b!.byteLength, `${label}: length`).toBe(SIZE);
  const v = b![0]!;
  expect(v >= 1 && v <= 250, `${label}: first byte ${v}`).toBe(true);
  expect(
    b!.every((x) => x === v),
    `${label}: one value throughout`,
  ).toBe(true);
}

function startWriter(root: string): Promise<{ proc: ChildProcess; out: () => string }> {
  const proc = spawn(process.execPath, ["--conditions=mountkit-source", "--import", "tsx", child, root], { cwd: repo });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  return new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`writer did not start: ${out}`)), 30_000);
    proc.stdout!.on("data", () => {
      if (out.includes("done same")) {
        clearTimeout(t);
        res({ proc, out: () => out });
      }
    });
    proc.on("exit", (c) => rej(new Error(`writer exited (${c}): ${out}`)));
  });
}

/** Starts the writer, reads while it writes, and SIGKILLs it while a temp file exists; true when the kill landed mid-write. */
async function killMidWrite(root: string): Promise<boolean> {
  const reader = fileBlobStore({ root });
  const { proc } = await startWriter(root);
  // the writer is alive, so the reader's start left its temp files alone
  expect(await reader.ready).toBe(0);
  const tmp = join(root, "tmp");
  let reads = 0;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    whole(await reader.get("same"), `read ${++reads} during the writes`);
    if (readdirSync(tmp).length > 0) break;
  }
  const exited = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGKILL");
  await exited;
  return readdirSync(tmp).length > 0;
}

it(
  "a write killed half way leaves old or new bytes, never part, and its temp file goes at the next start",
  { timeout: 120_000 },
  async () => {
    let root = "";
    let landed = false;
    // the kill can arrive just after a rename; try again until one lands while a temp file exists
    for (let attempt = 0; attempt < 5 && !landed; attempt++) {
      root = mkdtempSync(join(tmpdir(), "mk-blob-crash-"));
      dirs.push(root);
      landed = await killMidWrite(root);
    }
    expect(landed, "no kill landed while a temp file existed in 5 attempts").toBe(true);

    const tmp = join(root, "tmp");
    const left = readdirSync(tmp);
    expect(left.length).toBeGreaterThan(0);
    // every file in place is whole, whichever write it came from; a key whose first write died reads as absent
    const after = fileBlobStore({ root });
    const keys = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.parentPath.endsWith("tmp"))
      .map((e) => e.name);
    expect(keys).toContain("same");
    for (const k of keys) whole(await after.get(k), `after the kill: ${k}`);
    const lastStarted = Math.max(...keys.filter((k) => k.startsWith("new_")).map((k) => Number(k.slice(4))), -1) + 1;
    expect(await after.get(`new_${lastStarted}`)).toBeNull();

    // the next start removes what the dead process left
    expect(await after.ready).toBe(left.length);
    expect(readdirSync(tmp)).toEqual([]);
  },
);
