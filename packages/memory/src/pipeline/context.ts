// State shared by the pipeline stages for one episode: the episode, the brain's store and the
// working set of resolved entities and candidate edges that stage 7 commits.
import type { Clock, IdGenerator, Logger } from "@mountkit/core";
import type { MemoryEvents } from "../domain/events.js";
import type { RelationTable } from "../domain/relations.js";
import type { EdgeRecord, EntityRecord, EpisodeRecord } from "../domain/types.js";
import type { Extractor } from "../extractors/types.js";
import type { EdgeInvalidation, MemoryStore } from "../store/types.js";

export interface PipelineDeps {
  store: MemoryStore;
  extractor: Extractor;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Outbound events of commits and failures; none when absent. */
  events?: MemoryEvents;
  /** Relations, their verbs and cardinalities (the built-in table plus the host's); default the built-in one. */
  relations?: RelationTable;
}

/** An entity of the episode after resolution: an existing record (maybe changed) or a new one. */
export interface ResolvedEntity {
  record: EntityRecord;
  isNew: boolean;
  changed: boolean;
}

export interface EpisodeRun {
  deps: PipelineDeps;
  episode: EpisodeRecord;
  now: number;
  /** Resolved entities by id. */
  entities: Map<string, ResolvedEntity>;
  edges: EdgeRecord[];
  invalidations: EdgeInvalidation[];
  /** Awaited between units of work: gives the event loop a turn once a time slice is used up (`timeSlicer`). */
  slice: () => Promise<void>;
}
