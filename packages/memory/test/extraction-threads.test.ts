// Extraction off the host's event loop (issue #24): the threaded NLP extractor answers exactly what the in-process
// one does, a thread that throws, dies or hangs fails only its own episode, dispose ends the threads, an idle pool
// never keeps a process alive, and 50 concurrent 50 KB episodes leave the event loop free.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { LOOP_DELAY_MAX_MS } from "../../../test/loop-delay.js";
import { nlpExtractor } from "../src/extractors/nlp-extractor.js";
import { ExtractionBusyError, type ThreadedExtractor, threadedNlpExtractor } from "../src/extractors/threads.js";
import type { ExtractionInput, Extractor } from "../src/extractors/types.js";
import { createMemoryService, EXTRACTION_QUEUE, type MemoryService } from "../src/index.js";
import { DEFAULT_OCCURRED_AT, loadLabelled } from "./labelled.js";
import { largeEpisode } from "./large-episodes.js";

const repo = fileURLToPath(new URL("../../..", import.meta.url));
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function both(x: Extractor, input: ExtractionInput) {
  const entities = await x.extractEntities(input);
  const facts = await x.extractFacts({ ...input, entities });
  return { entities, facts };
}

/**
 * A stand-in for the worker module: "THROW" throws, "EXIT" ends its thread, "HANG" never answers, anything else
 * names one entity per word. Plain JavaScript, written to a temporary folder.
 */
function fakeWorker(): string {
  const file = join(mkdtempSync(join(tmpdir(), "mountkit-extract-")), "worker.mjs");
  writeFileSync(
    file,
    `export function analyse(input) {
  if (input.content.includes("THROW")) throw new Error("the analysis broke");
  if (input.content.includes("EXIT")) process.exit(3);
  if (input.content.includes("HANG")) for (;;);
  const words = input.content.split(/\\s+/).filter((w) => /^[A-Z]/.test(w));
  return { entities: words.map((name) => ({ name, kind: "other" })), facts: [] };
}
`,
  );
  return pathToFileURL(file).href;
}

/** A worker module that names the analysis it ran: its thread's n-th answers `run n` (one thread: the pool's order). */
function countingWorker(): string {
  const file = join(mkdtempSync(join(tmpdir(), "mountkit-extract-")), "worker.mjs");
  writeFileSync(
    file,
    `let n = 0;
export function analyse(input) {
  n++;
  if (input.content.includes("THROW")) throw new Error("the analysis broke " + n);
  return { entities: [{ name: "run " + n, kind: "other" }], facts: [] };
}
`,
  );
  return pathToFileURL(file).href;
}

function service(options: Parameters<typeof createMemoryService>[0] = {}): MemoryService {
  const s = createMemoryService({ dailyQuota: 1e9, ...options });
  cleanup.push(() => s.dispose());
  return s;
}

describe("threaded NLP extractor", () => {
  it("answers exactly what the in-process extractor answers, on the labelled sentences and on large texts", async () => {
    const threaded = threadedNlpExtractor({ threads: 2 });
    cleanup.push(() => threaded.destroy());
    const local = nlpExtractor();
    const inputs: ExtractionInput[] = loadLabelled().map((s) => ({
      content: s.text,
      metadata: s.speaker ? { speaker: s.speaker } : {},
      occurredAt: Date.parse(s.occurredAt ?? DEFAULT_OCCURRED_AT),
    }));
    inputs.push(
      { content: largeEpisode(11), metadata: {}, occurredAt: Date.parse(DEFAULT_OCCURRED_AT) },
      { content: largeEpisode(12, 99_000), metadata: { speaker: "Jordan Lee" }, occurredAt: Date.parse("2021-02-03T00:00:00Z") },
    );
    // eight at a time: the two threads and the analyses kept between the two calls see episodes interleaved
    const got: Array<Awaited<ReturnType<typeof both>>> = [];
    for (let k = 0; k < inputs.length; k += 8) got.push(...(await Promise.all(inputs.slice(k, k + 8).map((i) => both(threaded, i)))));
    for (const [k, input] of inputs.entries()) expect(got[k], input.content.slice(0, 80)).toStrictEqual(await both(local, input));
    expect(got.at(-1)!.facts.length).toBeGreaterThan(500);
    expect(threaded.threads).toBeGreaterThan(0);
  });

  it("fails only the episode whose thread throws, dies or runs past the time limit", async () => {
    const extractor = threadedNlpExtractor({ threads: 1, timeoutMs: 1500 }, { file: fakeWorker() });
    cleanup.push(() => extractor.destroy());
    const s = service({ extractor });
    const contents = ["Alice met Bruno", "THROW please", "Chloe met Dora", "EXIT now", "Elias met Farah", "HANG here", "Gina met Hana"];
    const ids: string[] = [];
    for (const content of contents) ids.push((await s.api.createEpisode("brain", { content })).id);
    await s.worker.idle();
    const episodes = await Promise.all(ids.map((id) => s.api.getEpisode("brain", id)));
    expect(episodes.map((e) => e?.status)).toEqual(["done", "failed", "done", "failed", "done", "failed", "done"]);
    expect(episodes[1]!.error).toContain("the analysis broke");
    expect(episodes[3]!.error).toContain("exited");
    expect(episodes[5]!.error).toContain("longer than 1500 ms");
    const names = (await s.store.listEntities({ brainId: "brain", limit: 100 })).items.map((e) => e.name).sort();
    expect(names).toEqual(["Alice", "Bruno", "Chloe", "Dora", "Elias", "Farah", "Gina", "Hana"]);
  });

  it("answers busy past its queue, a transient error the pipeline retries instead of failing the episode", async () => {
    const extractor = threadedNlpExtractor({ threads: 1, maxQueue: 0, timeoutMs: 1000 }, { file: fakeWorker() });
    cleanup.push(() => extractor.destroy());
    const input = { metadata: {}, occurredAt: 0 };
    const hanging = extractor.extractEntities({ ...input, content: "HANG" });
    await expect(extractor.extractEntities({ ...input, content: "Alice" })).rejects.toBeInstanceOf(ExtractionBusyError);
    await expect(hanging).rejects.toThrow("longer than 1000 ms");
    expect(await extractor.extractEntities({ ...input, content: "Alice" })).toEqual([{ name: "Alice", kind: "other" }]);
  });

  it("prepare starts an analysis ahead: the episode's own calls take it, once, and only a few are started ahead", async () => {
    const extractor = threadedNlpExtractor({ threads: 1 }, { file: countingWorker() });
    cleanup.push(() => extractor.destroy());
    const input = (content: string) => ({ content, metadata: {}, occurredAt: 0 });
    const run = async (content: string) => (await extractor.extractEntities(input(content)))[0]!.name;
    const done = (content: string) => extractor.extractFacts({ ...input(content), entities: [] });
    // a thread up and idle first (a starting pool may hand its first tasks out in another order)
    expect(await run("warm")).toBe("run 1");
    await done("warm");
    extractor.prepare!(input("first"));
    extractor.prepare!(input("second"));
    // the thread holds two (one running, one waiting): a third is not started ahead, it waits for its own call
    extractor.prepare!(input("third"));
    expect(await run("fourth")).toBe("run 4");
    expect(await run("third")).toBe("run 5");
    expect(await run("second")).toBe("run 3");
    expect(await run("first")).toBe("run 2");
    // extractFacts takes the analysis its extractEntities used; the next call for the text analyses it again
    await done("first");
    expect(await run("first")).toBe("run 6");
    // an analysis started ahead that fails is not kept: the episode's own call analyses again
    extractor.prepare!(input("THROW"));
    // (the next analysis waits behind it in the thread: the failure is in by then)
    expect(await run("fifth")).toBe("run 8");
    await expect(extractor.extractEntities(input("THROW"))).rejects.toThrow("the analysis broke 9");
  });

  it("dispose ends the service's threads; an episode cut short is retried, not failed", async () => {
    const s = createMemoryService({ extraction: { threads: 2 } });
    await s.api.createEpisode("brain", { content: "Alice Moreau moved to Lisbon in 2021." });
    await s.worker.idle();
    const started = threadsOf(s);
    expect(started).toBeGreaterThan(0);
    const long = await s.api.createEpisode("brain", { content: largeEpisode(21, 99_000) });
    await new Promise((r) => setTimeout(r, 300));
    await s.dispose();
    expect(threadsOf(s)).toBe(0);
    // cut short in its thread, the episode is neither failed nor lost: its job waits for a retry
    const after = await s.api.getEpisode("brain", long.id);
    expect(after?.status).not.toBe("failed");
    if (after?.status !== "done") expect(await s.store.jobs.counts(EXTRACTION_QUEUE)).toMatchObject({ queued: 1 });
  });

  it.each(["idle", "dispose"])("a host process started with tsx extracts on threads and exits by itself (%s)", async (mode) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--conditions=mountkit-source", "--import", "tsx", "packages/memory/test/fixtures/threads-child.ts", mode],
      { cwd: repo, timeout: 60_000 },
    );
    const out = JSON.parse(stdout.trim().split("\n").pop()!);
    expect(out).toEqual({ status: "done", facts: ["Alice Moreau moved to Lisbon in 2021."] });
  });

  it("50 concurrent 50 KB episodes are accepted at once and all extracted, with the event loop free", async () => {
    const s = service({ extraction: { timeoutMs: 600_000 }, worker: { pollMs: 50 } });
    const brains = ["b0", "b1", "b2", "b3", "b4"];
    const keys = await Promise.all(brains.map((brainId) => s.keys.create({ brainId })));
    const bodies = Array.from({ length: 50 }, (_, i) =>
      JSON.stringify({ content: largeEpisode(100 + i), occurredAt: "2023-05-08T12:00:00Z" }),
    );
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    const posts: Array<Promise<Response>> = [];
    for (const [i, body] of bodies.entries()) {
      const headers = { authorization: `Bearer ${keys[i % brains.length]!.key}`, "content-type": "application/json" };
      posts.push(s.fetch(new Request("http://x/v1/episodes", { method: "POST", headers, body })));
      // requests arrive one I/O event each, as over a socket: the in-memory store answers in microtasks, and
      // fifty posts started in one turn would run as one task
      await new Promise((r) => setImmediate(r));
    }
    const answers = await Promise.all(posts);
    const accepted = performance.now() - t0;
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(202));
    expect(accepted).toBeLessThan(5000);
    await s.worker.idle();
    loop.disable();
    const statuses = (await Promise.all(brains.map((b) => s.store.listEpisodes({ brainId: b, limit: 100 })))).flatMap((p) =>
      p.items.map((e) => e.status),
    );
    expect(statuses).toEqual(Array(50).fill("done"));
    // before issue #24 one such episode held the loop for about a second, and the fifty for minutes
    expect(loop.max / 1e6).toBeLessThan(LOOP_DELAY_MAX_MS);
  }, 600_000);
});

/** Threads of the service's default extractor (`ThreadedExtractor.threads`). */
function threadsOf(s: MemoryService): number {
  return (s.extractor as ThreadedExtractor).threads;
}
