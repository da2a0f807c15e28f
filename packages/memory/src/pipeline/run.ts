// The extraction pipeline: stages 1-7 for one episode, run by the queue worker. Per brain, episodes
// are resolved and committed one at a time so two concurrent episodes never create the same entity:
// the queue runs one job per brain across processes (group key), an in-process lock covers stores
// without group keys, and the commit is optimistic on the brain's version (resolved again on conflict).
import { kitMeter, timeSlicer } from "@mountkit/core";
import type { Job } from "@mountkit/core/jobs";
import type { EpisodeRecord } from "../domain/types.js";
import type { Embedder } from "../embeddings.js";
import { commit, indexVectors } from "./commit.js";
import type { EpisodeRun, PipelineDeps } from "./context.js";
import { resolveContradictions } from "./contradiction.js";
import { dropDuplicates } from "./dedup.js";
import { applyEndings } from "./endings.js";
import { extractEntities } from "./entities.js";
import { extractFacts } from "./facts.js";
import { prefetchEdges, prefetchEntities } from "./lookups.js";
import { createResolver, knownCandidates, knownMentions } from "./resolve.js";
import { resolveTimes } from "./temporal.js";
import { resolveTransfers } from "./transfers.js";

export const EXTRACTION_QUEUE = "memory.extract";

/** The brain's queued episodes an extraction reads with its own, for the extractor to start on (one job ahead, and one spare). */
const AHEAD = 2;

/** Resolutions of one episode against a brain that keeps changing under it before the job is retried. */
const MAX_CONFLICTS = 5;

export interface ExtractionPayload {
  brainId: string;
  episodeId: string;
}

function keyedLock() {
  const tails = new Map<string, Promise<unknown>>();
  const lock = async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const prev = tails.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
  /** Whether `key` is held (or waited for): a lock taken now would wait. */
  const busy = (key: string) => tails.has(key);
  return Object.assign(lock, { busy });
}

export interface Pipeline {
  /**
   * The queue handler: throws only on storage errors and transient extractor errors (`transient: true`, such as
   * busy extraction threads), which the queue retries; other extractor errors fail the episode.
   */
  handle(job: Job<ExtractionPayload>): Promise<void>;
  /** Marks an episode failed once its job has no attempts left. */
  onDead(job: Job<ExtractionPayload>, error: unknown): Promise<void>;
}

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000) || "extraction failed";

/**
 * Wraps a store so its failures can be told apart from the extractor's: a store error is transient
 * (the queue retries the job), an extractor error is final (the episode fails with the reason).
 */
function tagStoreErrors<S extends object>(store: S, tagged: WeakSet<object>): S {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        try {
          return await value.apply(target, args);
        } catch (err) {
          if (typeof err === "object" && err !== null) tagged.add(err);
          throw err;
        }
      };
    },
  });
}

export function createPipeline(options: PipelineDeps & { embedder?: Embedder }): Pipeline {
  const lock = keyedLock();
  const storeErrors = new WeakSet<object>();
  const deps: PipelineDeps = { ...options, store: tagStoreErrors(options.store, storeErrors) };
  const { store, clock, logger } = deps;
  // extraction lag: from the episode's arrival to its facts committed (or its failure), whatever the queue did between
  const lag = kitMeter()?.createHistogram("mountkit.memory.extraction.lag", {
    description: "Time from an episode's arrival to the end of its extraction, by outcome",
    unit: "s",
    advice: { explicitBucketBoundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600] },
  });
  const lagged = (episode: { createdAt: number }, outcome: "done" | "failed") =>
    lag?.record(Math.max(0, clock.now() - episode.createdAt) / 1000, { "mountkit.outcome": outcome });

  /** Marks the episode failed, with its `episode.failed` event in the same write. */
  async function fail(brainId: string, id: string, err: unknown) {
    const enqueue = await deps.events?.failed(brainId);
    await store.setEpisodeStatus({
      brainId,
      id,
      status: "failed",
      error: reasonOf(err),
      now: clock.now(),
      ...(enqueue ? { enqueue } : {}),
    });
    if (enqueue) deps.events?.committed();
  }

  function prepare(episode: EpisodeRecord) {
    deps.extractor.prepare?.({ content: episode.content, metadata: episode.metadata, occurredAt: episode.occurredAt });
  }

  /**
   * The episode, moved to processing, and the brain's version as read then; null when it is gone or done. The brain's
   * next queued episodes, read with it, go to the extractor to start on while this one resolves and commits.
   */
  async function begin({ brainId, episodeId: id }: ExtractionPayload) {
    if (store.beginExtraction) {
      const begun = await store.beginExtraction({ brainId, id, now: clock.now(), ...(deps.extractor.prepare ? { ahead: AHEAD } : {}) });
      for (const next of begun?.ahead ?? []) prepare(next);
      return begun;
    }
    const episode = await store.getEpisode({ brainId, id });
    if (!episode || episode.status === "done") return null;
    await store.setEpisodeStatus({ brainId, id, status: "processing", now: clock.now() });
    return { episode, version: undefined };
  }

  async function process(payload: ExtractionPayload) {
    const begun = await begin(payload);
    if (!begun) return;
    const { episode } = begun;
    // the version read with the episode serves the first attempt unless this process has another extraction of the
    // brain ahead (which commits first); a commit elsewhere meanwhile is a conflict, and the next attempt reads again
    const early = lock.busy(episode.brainId) ? undefined : begun.version;
    await lock(episode.brainId, async () => {
      for (let attempt = 1; ; attempt++) {
        const version = attempt === 1 && early !== undefined ? early : await store.brainVersion?.({ brainId: episode.brainId });
        const run: EpisodeRun = {
          deps,
          episode,
          now: clock.now(),
          entities: new Map(),
          edges: [],
          invalidations: [],
          slice: timeSlicer(),
        };
        // which events the brain's subscriptions take, read for the commit while the episode resolves
        const subscribed = deps.events?.wanted(episode.brainId);
        subscribed?.catch(() => {});
        try {
          await resolveEpisode(run);
        } catch (err) {
          if (typeof err === "object" && err !== null && (storeErrors.has(err) || (err as { transient?: unknown }).transient === true))
            throw err;
          logger.warn("extraction failed", { episode: episode.id, error: reasonOf(err) });
          await fail(episode.brainId, episode.id, err);
          lagged(episode, "failed");
          return;
        }
        const result = await commit(run, version, subscribed);
        if (result.committed) {
          await indexVectors(run, options.embedder);
          lagged(episode, "done");
          return;
        }
        if (result.reason !== "conflict") return;
        // another worker committed to this brain meanwhile (a job that outlived its lease): resolve again
        logger.info("brain changed during extraction; resolving again", { episode: episode.id, attempt });
        if (attempt >= MAX_CONFLICTS) throw new Error(`brain ${episode.brainId} kept changing during extraction`);
      }
    });
  }

  return {
    async handle(job) {
      await process(job.payload);
    },
    async onDead(job, error) {
      await fail(job.payload.brainId, job.payload.episodeId, error);
    },
  };
}

/**
 * Stages 1-6 of one attempt: the episode's entities and facts resolved against the brain, its times, transfers,
 * endings, duplicates and contradictions settled into `run`.
 */
async function resolveEpisode(run: EpisodeRun): Promise<void> {
  const resolver = createResolver(run);
  // the brain's entities named in the text are looked up while the extractor reads it
  const candidates = knownCandidates(run);
  candidates.catch(() => {});
  const extracted = await extractEntities(run);
  extracted.push(...(await knownMentions(run, await candidates, extracted)));
  await prefetchEntities(run, extracted);
  for (const e of extracted) {
    await run.slice();
    await resolver.resolve(e);
  }
  const facts = await extractFacts(run, resolver);
  const timed = resolveTimes(run, facts);
  await resolveTransfers(run, timed.edges);
  await prefetchEdges(run, [...timed.edges, ...timed.endings]);
  const ended = await applyEndings(run, timed.endings, timed.edges);
  run.edges = await dropDuplicates(run, ended);
  await resolveContradictions(run, run.edges, timed.generic);
}
