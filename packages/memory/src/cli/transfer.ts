// `mountkit-memory export|import|brains delete` (docs/memory.md#export-and-import): a brain moved as JSON Lines
// through the store's paged reads and batched writes, from and to a file or stdio, with a progress line on a
// terminal; and the admin's whole-brain deletion.
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { once } from "node:events";
import { randomIds, systemClock } from "@mountkit/core";
import { createMemoryApi } from "../api.js";
import type { CliIo } from "./io.js";

function flagsOf(argv: string[]) {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) positional.push(a);
    else if (a.includes("=")) flags.set(a.slice(2, a.indexOf("=")), a.slice(a.indexOf("=") + 1));
    else flags.set(a.slice(2), argv[++i] ?? "");
  }
  return { flags, positional };
}

/** A progress line redrawn in place on a terminal (at most every 100 ms), silent elsewhere. */
function progressLine(stream: NodeJS.WriteStream | undefined, label: string) {
  const tty = Boolean(stream?.isTTY);
  let last = 0;
  return {
    draw(text: string, force = false) {
      if (!tty || (!force && Date.now() - last < 100)) return;
      last = Date.now();
      stream!.write(`\r${label} ${text}\u001b[K`);
    },
    done() {
      if (tty) stream!.write("\n");
    },
  };
}

const bar = (fraction: number, width = 30) => {
  const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
};

export async function transferCommand(argv: string[], io: CliIo): Promise<number> {
  const { flags, positional } = flagsOf(argv);
  const [command, sub, arg] = positional;
  const brainId = command === "brains" ? arg : flags.get("brain");
  if (!brainId || (command === "brains" && sub !== "delete")) {
    io.err(command === "brains" ? "usage: mountkit-memory brains delete <brainId>" : `${command} needs --brain <brainId>`);
    return 2;
  }
  const { store, close } = await io.openStore();
  const api = createMemoryApi({ store, clock: systemClock, ids: randomIds });
  const progress = io.progress ?? process.stderr;
  try {
    if (command === "brains") {
      const r = await api.deleteBrain(brainId);
      io.out(
        `deleted brain ${brainId}: ${r.counts.episodes} episodes, ${r.counts.edges} edges, ${r.counts.entities} entities, ${r.counts.playbooks} playbooks (erasure ${r.id})`,
      );
      return 0;
    }
    if (command === "export") {
      const out = flags.get("out") ? createWriteStream(flags.get("out")!) : (io.stdout ?? process.stdout);
      const line = progressLine(progress, "exporting");
      let records = -1;
      for await (const chunk of api.exportBrain(brainId)) {
        records += chunk.split("\n").length - 1;
        if (!out.write(chunk)) await once(out, "drain");
        line.draw(`${records} records`);
      }
      line.draw(`${records - 1} records`, true);
      line.done();
      if (flags.get("out"))
        await new Promise<void>((resolve, reject) =>
          (out as ReturnType<typeof createWriteStream>).end((e?: Error | null) => (e ? reject(e) : resolve())),
        );
      io.err(`exported brain ${brainId}: ${records - 1} records`);
      return 0;
    }
    // the brain is created when absent (idempotent), so an export can be loaded on a fresh database
    await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: Date.now() } });
    const file = flags.get("in");
    const total = file ? statSync(file).size : 0;
    const input = file ? createReadStream(file) : (io.stdin ?? process.stdin);
    let read = 0;
    const counted = (async function* () {
      for await (const chunk of input as AsyncIterable<Uint8Array | string>) {
        read += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
        yield chunk;
      }
    })();
    const line = progressLine(progress, "importing");
    const r = await api.importBrain(brainId, counted, {
      onProgress: ({ counts }) => {
        const n = counts.episodes + counts.entities + counts.edges + counts.playbooks;
        line.draw(total ? `${bar(read / total)} ${Math.round((100 * read) / total)}%  ${n} records` : `${n} records`);
      },
    });
    line.draw(total ? `${bar(1)} 100%` : "done", true);
    line.done();
    const c = r.counts;
    io.out(`imported into brain ${brainId}: ${c.episodes} episodes, ${c.entities} entities, ${c.edges} edges, ${c.playbooks} playbooks`);
    return 0;
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  } finally {
    await close?.();
  }
}
