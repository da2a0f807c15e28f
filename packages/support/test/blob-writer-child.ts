// Child process of the filesystem blob store's crash test (file-blobs-crash.test.ts): writes 4 MiB blobs under
// argv[2] without end, each filled with one byte value, printing `done <key>` after each put, until it is killed.
import { fileBlobStore } from "@mountkit/support/node";

const SIZE = 4 * 1024 * 1024;
const blobs = fileBlobStore({ root: process.argv[2]! });
await blobs.ready;
process.stdout.write("ready\n");
for (let i = 0; ; i++) {
  const fill = (i % 250) + 1;
  // the same key again and again (a replacing write) and a new key each time (a first write)
  for (const key of ["same", `new_${i}`]) {
    await blobs.put(key, new Uint8Array(SIZE).fill(fill));
    process.stdout.write(`done ${key}\n`);
  }
}
