// The memory store's optional erasure, export and import operations (docs/memory.md#erasure,
// docs/memory.md#export-and-import), apart from the rest of the contract in types.ts.
import type { ErasureKind, ErasureRecord, ErasureResult } from "../domain/erasure.js";
import type { EdgeRecord, EntityRecord, EpisodeRecord, Page, PageAfter, PlaybookRecord } from "../domain/types.js";
import type { EpisodeJob } from "./episode-job.js";

/** The record kinds of an export, in the order an export writes them. */
export type ExportKind = "episodes" | "entities" | "edges" | "playbooks";
export interface ExportRecords {
  episodes: EpisodeRecord;
  entities: EntityRecord;
  edges: EdgeRecord;
  playbooks: PlaybookRecord;
}
export type ExportBatch = { [K in ExportKind]: { kind: K; items: ExportRecords[K][] } }[ExportKind];

export interface StoreErasure {
  // --- erasure, export and import (docs/memory.md#erasure, docs/memory.md#export-and-import) ---
  /**
   * Forgets episodes, or a subject (an entity with every episode and edge naming it), as `planErasure` decides
   * (domain/erasure.ts): rows, full-text and vector index entries, the conversation neighbours' index text,
   * playbooks' episode lists, all in one transaction that also writes `audit` with the result's counts. On SQLite
   * the database file is scrubbed afterwards (secure delete, FTS5 optimize, WAL checkpoint).
   */
  eraseMemory?(input: {
    brainId: string;
    episodeIds: string[];
    subjectId?: string;
    audit: { id: string; kind: Exclude<ErasureKind, "brain">; target: string; at: number };
  }): Promise<ErasureResult>;
  /** Deletes a brain with everything it holds (keys, webhooks' subscriptions left to the caller); false when absent. */
  deleteBrain?(input: { brainId: string; audit: { id: string; at: number } }): Promise<ErasureRecord | null>;
  /** The audit records of a brain's erasures, oldest first (kept after the brain is deleted). */
  listErasures?(input: { brainId: string }): Promise<ErasureRecord[]>;
  /** A page of the brain's records of one kind, oldest first ((createdAt or tIngested, id) ascending): export reads. */
  exportPage?<K extends ExportKind>(input: {
    brainId: string;
    kind: K;
    after: PageAfter | null;
    limit: number;
  }): Promise<Page<ExportRecords[K]>>;
  /**
   * Writes exported records into the brain as they are (ids and times kept), indexed as if stored in that order;
   * `jobs`: extraction jobs of imported episodes not yet extracted. Ids the brain already holds fail the batch.
   */
  importRecords?(input: { brainId: string; batch: ExportBatch; jobs?: EpisodeJob[] }): Promise<void>;
}
