// Runs the labelled histories (issue #25) through a memory service: each history in a brain of its own,
// its statements posted in date order with the clock at each statement's date (so `tIngested` is when the
// memory was told, and `knownAt` questions mean something), extraction awaited after each, then every
// question asked through POST /v1/recall (the service's own fetch handler: the route, its validation and
// its date parsing) and scored by score.ts. Shared by histories.test.ts and `npm run bench -- memory`.
// With `baseUrl` (RunOptions) the same runner talks to a server on a real socket instead: POST /v1/episodes
// with `occurredAt`, GET /v1/episodes/:id until extraction ends, POST /v1/recall (test/memory-histories.test.ts).
import { type Clock, manualClock } from "@mountkit/core";
import { parseInstant } from "../../src/domain/wire.js";
import { type History, type HistoryClass, HISTORY_CLASSES, loadHistories, type Question } from "./schema.js";
import { type QuestionScore, type RecallAnswer, scoreExpectation } from "./score.js";

/** The issue's targets, asserted by histories.test.ts. */
export const HISTORY_TARGETS = { overall: 0.9, perClass: 0.8 } as const;

/** Recall's `limit` for every question: high, so ranking does not decide what the change model is scored on. */
export const RECALL_LIMIT = 50;

/** What the runner needs of a memory service (the source's or the built package's `createMemoryService`). */
export interface HistoryService {
  api: {
    createEpisode(
      brainId: string,
      input: { content: string; metadata?: Record<string, unknown>; occurredAt?: number },
    ): Promise<{ id: string }>;
    getEpisode(brainId: string, id: string): Promise<{ id: string; status: string; error: string | null; edgeIds: string[] }>;
  };
  keys: { create(input: { brainId: string }): Promise<{ key: string }> };
  worker: { idle(): Promise<void> };
  fetch(request: Request): Promise<Response>;
  dispose(): Promise<void>;
}
export type CreateHistoryService = (options: { clock: Clock; dailyQuota: number; worker: { pollMs: number } }) => HistoryService;

export interface QuestionOutcome extends QuestionScore {
  question: Question;
  /** What POST /v1/recall answered (the HTTP suite compares it with the in-process run's). */
  answer: RecallAnswer;
}
export interface HistoryOutcome {
  id: string;
  class: HistoryClass;
  domain: string;
  /** Every question of the history answered right. */
  correct: boolean;
  questions: QuestionOutcome[];
  /** Episodes whose extraction failed, with their error. */
  failedEpisodes: string[];
  /** Each statement's episode id, in statement order. */
  episodeIds: string[];
}

/** How the runner reaches the service: by default its own fetch handler and `api`; with `baseUrl`, a server on a socket. */
export interface RunOptions {
  /** A server the service is mounted on (e.g. `http://127.0.0.1:5123`): episodes, their status and recall go over HTTP. */
  baseUrl?: string;
}
export interface ClassRow {
  class: HistoryClass | "overall";
  n: number;
  correct: number;
  accuracy: number;
  questions: number;
  questionsCorrect: number;
}
export interface HistoriesReport {
  histories: HistoryOutcome[];
  rows: ClassRow[];
  overall: ClassRow;
  seconds: number;
}

const DAY = 86_400_000;
/** A date-only statement happened at noon UTC that day. */
export const statementTime = (s: string): number => parseInstant(s, { endOfDay: false })! + (/^\d{4}-\d{2}-\d{2}$/.test(s) ? DAY / 2 : 0);
/** A question's `asOf`/`knownAt` as the route reads it (its parser): a date-only value is the end of that UTC day. */
const pointTime = (s: string): number => parseInstant(s, { endOfDay: true })!;

type Send = (method: "GET" | "POST", path: string, key: string, body?: unknown) => Promise<Response>;

/** The service's own fetch handler, or a real server at `baseUrl`. */
function sender(service: HistoryService, baseUrl: string | undefined): Send {
  return (method, path, key, body) => {
    const init: RequestInit = {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
    return baseUrl ? fetch(`${baseUrl}${path}`, init) : service.fetch(new Request(`http://memory.test${path}`, init));
  };
}

async function json<T>(res: Response, status: number, what: string): Promise<T> {
  const body = (await res.json()) as T;
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

type EpisodeState = { id: string; status: string; error: string | null; edgeIds: string[] };

/** Over HTTP: POST /v1/episodes, then GET /v1/episodes/:id until its extraction is done or failed. */
async function episodeOverHttp(send: Send, service: HistoryService, key: string, input: Record<string, unknown>): Promise<string> {
  const { id } = await json<{ id: string }>(await send("POST", "/v1/episodes", key, input), 202, "POST /v1/episodes");
  await service.worker.idle();
  for (let i = 0; i < 1000; i++) {
    const e = await json<EpisodeState>(await send("GET", `/v1/episodes/${id}`, key), 200, "GET /v1/episodes/:id");
    if (e.status === "done" || e.status === "failed") return id;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`episode ${id}: extraction did not end`);
}

/** Ingests one history into its own brain and scores its questions. */
export async function runHistory(
  service: HistoryService,
  clock: ReturnType<typeof manualClock>,
  h: History,
  { baseUrl }: RunOptions = {},
): Promise<HistoryOutcome> {
  const brainId = `history-${h.id}`;
  const { key } = await service.keys.create({ brainId });
  const send = sender(service, baseUrl);
  const ids: string[] = [];
  for (const s of h.statements) {
    const at = statementTime(s.occurredAt);
    clock.set(at);
    const metadata = { ...s.metadata, ...(s.speaker ? { speaker: s.speaker } : {}) };
    if (baseUrl) {
      ids.push(await episodeOverHttp(send, service, key, { content: s.text, metadata, occurredAt: new Date(at).toISOString() }));
      continue;
    }
    ids.push((await service.api.createEpisode(brainId, { content: s.text, metadata, occurredAt: at })).id);
    await service.worker.idle();
  }
  // read after the whole history, as a later statement's extraction may still touch an earlier episode
  const episodes = baseUrl
    ? await Promise.all(
        ids.map(async (id) => json<EpisodeState>(await send("GET", `/v1/episodes/${id}`, key), 200, "GET /v1/episodes/:id")),
      )
    : await Promise.all(ids.map((id) => service.api.getEpisode(brainId, id)));
  const now = h.now ? statementTime(h.now) : statementTime(h.statements.at(-1)!.occurredAt) + DAY;
  clock.set(now);
  const questions: QuestionOutcome[] = [];
  for (const q of h.questions) {
    const body = { query: q.query, limit: RECALL_LIMIT, ...(q.asOf ? { asOf: q.asOf } : {}), ...(q.knownAt ? { knownAt: q.knownAt } : {}) };
    const answer = await json<RecallAnswer>(await send("POST", "/v1/recall", key, body), 200, "recall");
    const cx = { asOf: q.asOf ? pointTime(q.asOf) : now, knownAt: q.knownAt ? pointTime(q.knownAt) : now, episodes };
    questions.push({ question: q, answer, ...scoreExpectation(q.expect, answer, cx) });
  }
  return {
    id: h.id,
    class: h.class,
    domain: h.domain,
    correct: questions.every((q) => q.correct),
    questions,
    failedEpisodes: episodes.filter((e) => e.status !== "done").map((e) => `${e.id} ${e.status}: ${e.error ?? ""}`),
    episodeIds: ids,
  };
}

function row(cls: ClassRow["class"], list: HistoryOutcome[]): ClassRow {
  const qs = list.flatMap((h) => h.questions);
  const correct = list.filter((h) => h.correct).length;
  return {
    class: cls,
    n: list.length,
    correct,
    accuracy: list.length ? correct / list.length : 0,
    questions: qs.length,
    questionsCorrect: qs.filter((q) => q.correct).length,
  };
}

/** Runs every history (default: all files beside this module) through one service on a manual clock. */
export async function runHistories(create: CreateHistoryService, histories: History[] = loadHistories()): Promise<HistoriesReport> {
  const clock = manualClock("2020-01-01T00:00:00Z");
  const service = create({ clock, dailyQuota: 1e9, worker: { pollMs: 10 } });
  const t0 = performance.now();
  const outcomes: HistoryOutcome[] = [];
  try {
    for (const h of histories) outcomes.push(await runHistory(service, clock, h));
  } finally {
    await service.dispose();
  }
  const rows = HISTORY_CLASSES.map((c) =>
    row(
      c,
      outcomes.filter((h) => h.class === c),
    ),
  ).filter((r) => r.n > 0);
  return { histories: outcomes, rows, overall: row("overall", outcomes), seconds: (performance.now() - t0) / 1000 };
}

const pct = (n: number) => n.toFixed(2);

/** The compact table: class -> histories, correct, accuracy, and the same per question; then the misses. */
export function formatReport(r: HistoriesReport, { failures = 0, indent = "" }: { failures?: number; indent?: string } = {}): string {
  const line = (x: ClassRow) =>
    `${indent}${x.class.padEnd(15)} ${String(x.n).padStart(4)} ${String(x.correct).padStart(7)} ${pct(x.accuracy).padStart(8)}   ${`${x.questionsCorrect}/${x.questions}`.padStart(9)} ${pct(x.questions ? x.questionsCorrect / x.questions : 0).padStart(6)}`;
  const out = [
    `${indent}${"class".padEnd(15)} ${"n".padStart(4)} ${"correct".padStart(7)} ${"accuracy".padStart(8)}   ${"questions".padStart(9)} ${"acc".padStart(6)}`,
  ];
  for (const x of r.rows) out.push(line(x));
  out.push(line(r.overall));
  const missed = r.histories.filter((h) => !h.correct);
  for (const h of missed.slice(0, failures)) {
    out.push(`${indent}  ✗ ${h.id} (${h.class})${h.failedEpisodes.length ? ` failed episodes: ${h.failedEpisodes.join(", ")}` : ""}`);
    for (const q of h.questions.filter((x) => !x.correct))
      out.push(
        `${indent}      ${q.question.query} ${JSON.stringify({ asOf: q.question.asOf, knownAt: q.question.knownAt, ...q.question.expect })} -> ${q.detail}`,
      );
  }
  if (missed.length > failures && failures > 0) out.push(`${indent}  … ${missed.length - failures} more missed histories`);
  return out.join("\n");
}
