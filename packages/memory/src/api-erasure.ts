// Erasure, export and import as typed in-process calls (docs/memory.md#erasure, docs/memory.md#export-and-import):
// forget an episode or a subject, delete a brain, read the erasure audit, and move a brain in and out as JSON
// Lines, streamed both ways (pages of the store in, batches to the store out: a brain is never in memory whole).
import type { Clock, IdGenerator } from "@mountkit/core";
import { iso } from "@mountkit/core";
import type { ErasureRecord, ErasureResult } from "./domain/erasure.js";
import type { MemoryEvents } from "./domain/events.js";
import type { PageAfter } from "./domain/types.js";
import { memoryError } from "./errors.js";
import { EXTRACTION_QUEUE } from "./pipeline/run.js";
import type { ExportBatch, ExportKind, ExportRecords, StoreErasure } from "./store/erasure-types.js";
import type { EpisodeJob, MemoryStore } from "./store/types.js";

export interface ErasureApiDeps {
  store: MemoryStore;
  clock: Clock;
  ids: IdGenerator;
  maxAttempts?: number;
  /** Called after an import queued extraction jobs. */
  onEnqueued?: () => void;
  /** The brain's outbound events: an erasure deletes those naming what it erased. */
  events?: MemoryEvents | undefined;
}

/** The first line of an export. */
export const EXPORT_FORMAT = "mountkit-memory-export";
/** Records per store page on export and per store batch on import. */
export const TRANSFER_BATCH = 500;
/**
 * An import also writes its batch once the batch's lines reach this many characters (1 MiB): the batch and its parsed
 * records are most of what an import holds at once. 4 MiB let Fastify on Node 24 hold 13.7 MiB live during a 40 MiB
 * import; 1 MiB holds 2-7 MiB on every adapter, on Node 20 and 24.
 */
export const TRANSFER_BATCH_CHARS = 1024 * 1024;

/** The line type of each record kind, in the order an export writes them. */
const LINE_TYPE = { episodes: "episode", entities: "entity", edges: "edge", playbooks: "playbook" } as const satisfies Record<
  ExportKind,
  string
>;
const KIND_OF: Record<string, ExportKind> = { episode: "episodes", entity: "entities", edge: "edges", playbook: "playbooks" };

export interface ImportProgress {
  /** Records written so far, per kind. */
  counts: Record<ExportKind, number>;
}

const supported = <K extends keyof StoreErasure>(store: MemoryStore, name: K): NonNullable<StoreErasure[K]> => {
  const f = store[name];
  if (typeof f !== "function") throw memoryError("not_supported", { message: `the store does not support ${name}` });
  return (f as (...a: unknown[]) => unknown).bind(store) as NonNullable<StoreErasure[K]>;
};

/** What an erasure answers: what went, and the audit record's id. */
export function erasureJson(r: ErasureResult, audit: string) {
  return {
    erasure: audit,
    removed: { episodes: r.episodes, edges: r.edges, entities: r.entities },
    uncited: r.uncited,
    playbooks: { updated: r.playbooksUpdated, deleted: r.playbooksDeleted },
  };
}

export const erasureRecordJson = (r: ErasureRecord) => ({
  id: r.id,
  kind: r.kind,
  target: r.target,
  at: iso(r.at),
  counts: { ...r.counts },
});

/** One record as an export line: `type` first, then the record's fields in name order, its brain left out. */
function line(kind: ExportKind, record: object): string {
  const { brainId: _brain, ...rest } = record as Record<string, unknown>;
  const sorted = Object.fromEntries(
    Object.keys(rest)
      .sort()
      .map((k) => [k, rest[k]]),
  );
  return `${JSON.stringify({ type: LINE_TYPE[kind], ...sorted })}\n`;
}

/** Lines of an async source of text or bytes, split on LF (CRLF tolerated), decoded as UTF-8 across chunk ends. */
export async function* jsonLines(
  source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  maxLine = MAX_LINE_CHARS,
): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const decode = (chunk?: Uint8Array) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw memoryError("invalid_request", { message: "the import is not valid UTF-8" });
    }
  };
  let rest = "";
  let lineNo = 0;
  for await (const chunk of source) {
    rest += typeof chunk === "string" ? chunk : decode(chunk);
    let start = 0;
    let nl = rest.indexOf("\n");
    while (nl >= 0) {
      lineNo++;
      yield rest.slice(start, nl).replace(/\r$/, "");
      start = nl + 1;
      nl = rest.indexOf("\n", start);
    }
    rest = rest.slice(start);
    // a line never ending would hold the whole body: memory stays bounded by the longest line allowed
    if (rest.length > maxLine) throw bad(lineNo + 1, `a line longer than ${maxLine} characters`);
  }
  rest += decode();
  if (rest.trim()) yield rest;
}

/** The longest line an import takes (an episode's content and metadata, serialised). */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

function bad(lineNo: number, message: string) {
  return memoryError("invalid_request", { message: `line ${lineNo}: ${message}`, details: [{ path: `line ${lineNo}`, message }] });
}

type Parsed = { kind: ExportKind; record: Record<string, unknown> } | { end: Record<string, unknown> } | null;

/** Parses one line: a record, the end line, or `null` for the header and blank lines. */
function parseLine(text: string, lineNo: number, brainId: string): Parsed {
  if (!text.trim()) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad(lineNo, "not JSON");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw bad(lineNo, "not an object");
  const { type, ...record } = v as Record<string, unknown>;
  if (type === "header") {
    if (record.format !== EXPORT_FORMAT) throw bad(lineNo, `not a ${EXPORT_FORMAT} file`);
    return null;
  }
  if (type === "end") return { end: (record.counts ?? {}) as Record<string, unknown> };
  const kind = typeof type === "string" ? KIND_OF[type] : undefined;
  if (!kind) throw bad(lineNo, `unknown type ${JSON.stringify(type)}`);
  const key = kind === "playbooks" ? "slug" : "id";
  if (typeof record[key] !== "string" || !record[key]) throw bad(lineNo, `${LINE_TYPE[kind]} without ${key}`);
  return { kind, record: { ...record, brainId } };
}

export function erasureCalls({ store, clock, ids, maxAttempts, onEnqueued, events }: ErasureApiDeps) {
  const erase = async (
    brainId: string,
    input: { episodeIds: string[]; subjectId?: string; kind: "episode" | "subject"; target: string },
  ) => {
    const id = ids("era");
    const r = await supported(
      store,
      "eraseMemory",
    )({
      brainId,
      episodeIds: input.episodeIds,
      ...(input.subjectId ? { subjectId: input.subjectId } : {}),
      audit: { id, kind: input.kind, target: input.target, at: clock.now() },
    });
    // after the records: an event written meanwhile names records that are gone, and is found here
    await events?.forget(brainId, [...r.episodes, ...r.edges, ...r.entities]);
    return erasureJson(r, id);
  };
  return {
    /** Forgets an episode: it, its index text, and every edge and entity only it supported (docs/memory.md#erasure). */
    async forgetEpisode(brainId: string, episodeId: string) {
      supported(store, "eraseMemory");
      if (!(await store.getEpisode({ brainId, id: episodeId })))
        throw memoryError("not_found", { message: "episode not found", details: { id: episodeId } });
      return erase(brainId, { episodeIds: [episodeId], kind: "episode", target: episodeId });
    },

    /** Forgets a subject: the entity, every episode naming it (whole, even when it names others), every edge naming it. */
    async forgetSubject(brainId: string, entityId: string) {
      supported(store, "eraseMemory");
      if (!(await store.getEntity({ brainId, id: entityId })))
        throw memoryError("not_found", { message: "entity not found", details: { id: entityId } });
      return erase(brainId, { episodeIds: [], subjectId: entityId, kind: "subject", target: entityId });
    },

    /** The brain's erasures, oldest first: ids and counts, no erased content. */
    async listErasures(brainId: string) {
      return { items: (await supported(store, "listErasures")({ brainId })).map(erasureRecordJson) };
    },

    /** Deletes a brain with everything it holds and its keys (admin: the service's `brains.delete`, the CLI). */
    async deleteBrain(brainId: string) {
      const r = await supported(store, "deleteBrain")({ brainId, audit: { id: ids("era"), at: clock.now() } });
      if (!r) throw memoryError("not_found", { message: "brain not found", details: { id: brainId } });
      await events?.forget(brainId);
      return erasureRecordJson(r);
    },

    /** The brain as JSON Lines: a header, then episodes, entities, edges and playbooks, each oldest first, read page by page. */
    exportBrain: (brainId: string, options: { pageSize?: number } = {}) => exportLines(store, brainId, options),

    /**
     * Reads an export into an empty brain (409 `brain_not_empty` otherwise), in batches: records keep their ids and
     * times; episodes not yet extracted are queued again. Answers the records written per kind.
     */
    async importBrain(
      brainId: string,
      source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
      options: { onProgress?: (p: ImportProgress) => void; batchSize?: number } = {},
    ) {
      const importRecords = supported(store, "importRecords");
      const [eps, ents] = await Promise.all([store.listEpisodes({ brainId, limit: 1 }), store.listEntities({ brainId, limit: 1 })]);
      if (eps.items.length || ents.items.length) throw memoryError("brain_not_empty", { details: { brainId } });
      const counts: Record<ExportKind, number> = { episodes: 0, entities: 0, edges: 0, playbooks: 0 };
      let batch: { kind: ExportKind; items: Record<string, unknown>[] } | null = null;
      let queued = false;
      const flush = async () => {
        if (!batch?.items.length) return;
        const jobs: EpisodeJob[] =
          batch.kind === "episodes"
            ? batch.items
                .filter((e) => e.status === "queued" || e.status === "processing")
                .map((e) => ({
                  id: ids("job"),
                  queue: EXTRACTION_QUEUE,
                  payload: { brainId, episodeId: e.id as string },
                  maxAttempts: maxAttempts ?? 5,
                  groupKey: brainId,
                }))
            : [];
        if (batch.kind === "episodes") for (const e of batch.items) if (e.status === "processing") e.status = "queued";
        await importRecords({ brainId, batch: batch as unknown as ExportBatch, ...(jobs.length ? { jobs } : {}) });
        queued ||= jobs.length > 0;
        counts[batch.kind] += batch.items.length;
        batch = null;
        batchChars = 0;
        options.onProgress?.({ counts: { ...counts } });
      };
      let lineNo = 0;
      let batchChars = 0;
      let end: Record<string, unknown> | null = null;
      for await (const text of jsonLines(source)) {
        lineNo++;
        const parsed = parseLine(text, lineNo, brainId);
        if (!parsed) continue;
        if (end) throw bad(lineNo, "a line after the end line");
        if ("end" in parsed) {
          end = parsed.end;
          continue;
        }
        if (batch && batch.kind !== parsed.kind) await flush();
        batch ??= { kind: parsed.kind, items: [] };
        batch.items.push(parsed.record);
        batchChars += text.length;
        // by count and by size: a batch of big records (long episodes) must not hold the body's bulk at once
        if (batch.items.length >= (options.batchSize ?? TRANSFER_BATCH) || batchChars >= TRANSFER_BATCH_CHARS) await flush();
      }
      await flush();
      if (queued) onEnqueued?.();
      // records already written stay: an import that fails part way is undone by deleting the brain
      if (!end) throw bad(lineNo, "the export ends without its end line (cut short?)");
      for (const k of Object.keys(counts) as ExportKind[])
        if (end[k] !== counts[k]) throw bad(lineNo, `the end line counts ${String(end[k])} ${k}, the file holds ${counts[k]}`);
      return { counts };
    },
  };
}

/** `exportBrain`: the header line, each kind's records page by page, and the end line with the counts. */
async function* exportLines(store: MemoryStore, brainId: string, options: { pageSize?: number }): AsyncGenerator<string> {
  const exportPage = supported(store, "exportPage");
  const brain = await store.getBrain({ brainId });
  yield `${JSON.stringify({ type: "header", format: EXPORT_FORMAT, version: 1, brain: brain ? { id: brain.id, name: brain.name, createdAt: brain.createdAt } : { id: brainId } })}\n`;
  const counts: Record<ExportKind, number> = { episodes: 0, entities: 0, edges: 0, playbooks: 0 };
  for (const kind of Object.keys(LINE_TYPE) as ExportKind[]) {
    let after: PageAfter | null = null;
    do {
      const page: { items: ExportRecords[ExportKind][]; next: PageAfter | null } = await exportPage({
        brainId,
        kind,
        after,
        limit: options.pageSize ?? TRANSFER_BATCH,
      });
      counts[kind] += page.items.length;
      yield page.items.map((r) => line(kind, r)).join("");
      after = page.next;
    } while (after);
  }
  // the last line: a reader tells a complete export from a cut one
  yield `${JSON.stringify({ type: "end", counts })}\n`;
}
