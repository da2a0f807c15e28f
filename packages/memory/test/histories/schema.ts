// The labelled histories' file format (issue #25): short dated histories per domain, each with questions
// asked as of given dates and the answers expected through POST /v1/recall. Parsed with zod so a malformed
// history fails loudly instead of scoring as a silent miss.
import { readdirSync, readFileSync } from "node:fs";
import * as z from "zod";
import { parseInstant } from "../../src/domain/wire.js";

/** The classes of the issue, plus two controls (plain holds, coreference inside one episode). */
export const HISTORY_CLASSES = [
  "negation",
  "ending",
  "past",
  "event-start",
  "replacement",
  "value-change",
  "name-ambiguity",
  "org-role",
  "schedule",
  "first-person",
  "instruction",
  "holds",
  "coreference",
] as const;
export type HistoryClass = (typeof HISTORY_CLASSES)[number];

export const HISTORY_DOMAINS = ["people", "operations", "customers", "products", "schedules", "mixed"] as const;

/** What the recall route accepts for `asOf`/`knownAt` (its own parser): `YYYY-MM-DD` or a timestamp with a zone. */
const DAY_OR_INSTANT = z
  .string()
  .refine((s) => parseInstant(s, { endOfDay: false }) !== null, "YYYY-MM-DD or an ISO-8601 timestamp with a zone");

/** One dated statement, stored as one episode (`occurredAt`; `speaker` goes to `metadata.speaker`). */
const Statement = z.strictObject({
  occurredAt: DAY_OR_INSTANT,
  text: z.string().min(1),
  speaker: z.string().min(1).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/**
 * What a question expects of recall's answer:
 * - a fact (`subject`, `relation`, `object`) that must be valid (`valid: true`) or must not be (`valid: false`);
 * - `noFactFrom: i`: statement i (0-based) yielded no edge at all (an instruction is not a fact);
 * - `cites: i`: statement i's episode is among recall's episodes (the rule stays citable).
 */
const FactExpectation = z.strictObject({
  subject: z.string().min(1),
  relation: z.string().min(1),
  object: z.string().min(1),
  valid: z.boolean(),
});
const NoFactExpectation = z.strictObject({ noFactFrom: z.number().int().min(0) });
const CitesExpectation = z.strictObject({ cites: z.number().int().min(0) });
export const Expectation = z.union([FactExpectation, NoFactExpectation, CitesExpectation]);
export type Expectation = z.infer<typeof Expectation>;
export type FactExpectation = z.infer<typeof FactExpectation>;

const Question = z.strictObject({
  query: z.string().min(1),
  /** Valid time of the question; default the history's `now`. */
  asOf: DAY_OR_INSTANT.optional(),
  /** Transaction time; default the history's `now`. */
  knownAt: DAY_OR_INSTANT.optional(),
  expect: Expectation,
});
export type Question = z.infer<typeof Question>;

const History = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  class: z.enum(HISTORY_CLASSES),
  /** When the questions are asked (the clock's "now"); default the day after the last statement. */
  now: DAY_OR_INSTANT.optional(),
  statements: z.array(Statement).min(2).max(5),
  questions: z.array(Question).min(1),
  note: z.string().optional(),
});
export type History = z.infer<typeof History> & { domain: string };

const HistoryFile = z.strictObject({
  domain: z.enum(HISTORY_DOMAINS),
  histories: z.array(History),
});

/** Parses one file's JSON; throws with the zod issues (and the history's id) when it does not fit. */
export function parseHistoryFile(json: unknown): History[] {
  const file = HistoryFile.parse(json);
  for (const h of file.histories) {
    for (const q of h.questions) {
      const i = "noFactFrom" in q.expect ? q.expect.noFactFrom : "cites" in q.expect ? q.expect.cites : -1;
      if (i >= h.statements.length) throw new Error(`${h.id}: statement ${i} does not exist`);
    }
    const dates = h.statements.map((s) => Date.parse(s.occurredAt));
    if (dates.some((d, k) => k > 0 && d < dates[k - 1]!)) throw new Error(`${h.id}: statements are not in date order`);
  }
  return file.histories.map((h) => ({ ...h, domain: file.domain }));
}

/** Every history of every `*.json` file beside this module, ids unique. */
export function loadHistories(dir = new URL("./", import.meta.url)): History[] {
  const out: History[] = [];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  for (const f of files) {
    try {
      out.push(...parseHistoryFile(JSON.parse(readFileSync(new URL(f, dir), "utf8"))));
    } catch (e) {
      throw new Error(`${f}: ${(e as Error).message}`);
    }
  }
  const seen = new Set<string>();
  for (const h of out) {
    if (seen.has(h.id)) throw new Error(`duplicate history id ${h.id}`);
    seen.add(h.id);
  }
  return out;
}
