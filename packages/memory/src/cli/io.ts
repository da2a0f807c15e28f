// What the memory CLI reads and writes (`runCli`'s io): its streams, its store and its environment, so tests and the
// bin give it their own.
import type { MemoryStore } from "../store/types.js";

export interface CliIo {
  /** Where `export` writes without --out, and `import` reads without --in; default stdout and stdin. */
  stdout?: NodeJS.WritableStream;
  stdin?: NodeJS.ReadableStream;
  /** Where the progress bar is drawn; default stderr (drawn only on a terminal). */
  progress?: NodeJS.WriteStream;
  openStore(): Promise<{ store: MemoryStore; close?(): Promise<void> }>;
  out(line: string): void;
  err(line: string): void;
  /** Where `webhooks` commands read MOUNTKIT_URL and MOUNTKIT_TOKEN, and `mcp` MEMORY_BRAIN; default process.env. */
  env?: NodeJS.ProcessEnv;
}
