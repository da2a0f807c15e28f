// Scores one question of a labelled history against what POST /v1/recall answered (issue #25).
//
// An edge counts only when it is visible at the question's point: `edgeVisibleAt(edge, asOf, knownAt)`, the
// same test the store applies (recall already filters; the scorer checks again so a leak cannot score).
// An edge says an expected fact (`subject`, `relation`, `object`) when:
// - names: the entity names of its ends match the expected ones after labelled.ts's normalisation (case,
//   accents, leading articles and possessives) by its phrase rule, or when the entity's name holds every
//   expected word with at most two extra words ("Tariq" for "Tariq Haddad"; a possessive "Sam's parents" is
//   not "Sam"); a value holding a digit or an
//   `@` (email, phone, price, version) only needs every expected word, currency signs and trailing
//   punctuation ignored; "a|b" accepts either;
// - relation: relations.ts reads both names into families and directions; they match when they share a
//   family and the ends line up in that family's direction (or either way in a symmetric one); a negative
//   or past-marked edge (`not_`, `used_to_`, ...) never says a positive fact;
// - values: when the expected object holds a digit or an `@`, the relation is not compared (the value is
//   specific enough: `email`, `email_changed_to`, `has_email` all say it), only that the edge is positive;
// - roles: an expected `cto_of` (any role noun, relations.ts ROLES; or `head_of`, `lead_of`, ...) is also
//   said by two visible edges together, "s is/has_role CTO" and "s works_at o", or by one "s is CTO of o"
//   ("s became Head of Security" says `head_of` Security);
// - schedules: an expected relation `schedule` compares the time words of the expected object (hours in a
//   12-hour form, "nightly" as "night", weekday plurals folded, every/at/on dropped) with the words of
//   the edge's relation, object and subject together: all of them must appear.
// Expectations: `valid: true` needs one visible edge saying the fact; `valid: false` needs none;
// `noFactFrom: i` needs statement i's episode to have made no edge (its `edgeIds`, and recall's edges);
// `cites: i` needs statement i's episode among recall's episodes.
import { edgeVisibleAt } from "../../src/domain/types.js";
import { normalise, phraseMatches } from "../labelled.js";
import { holdsRole, readRelation, roleOf, roleWords } from "./relations.js";
import type { Expectation, FactExpectation } from "./schema.js";

export interface RecallEdge {
  id: string;
  source: string;
  target: string;
  relation: string;
  fact?: string;
  tValid: string | null;
  tInvalid: string | null;
  tIngested: string;
  tExpired: string | null;
  episodeId: string;
}

/** The part of POST /v1/recall's 200 body the scorer reads. */
export interface RecallAnswer {
  edges: RecallEdge[];
  entities: Array<{ id: string; name: string }>;
  episodes: Array<{ id: string }>;
}

export interface ScoreContext {
  asOf: number;
  knownAt: number;
  /** Each statement's episode, in statement order, with the edges its extraction made. */
  episodes: Array<{ id: string; edgeIds: string[] }>;
}

export interface QuestionScore {
  correct: boolean;
  /** On a miss: what recall showed about the expected names, to read what failed. */
  detail: string;
}

const ms = (s: string | null) => (s === null ? null : Date.parse(s));
const VALUE = /[0-9@]/;

function tokens(phrase: string): string[] {
  return normalise(phrase)
    .map((t) => t.replace(/^[("'$€£]+|[)"',.;:!?]+$/g, ""))
    .filter(Boolean);
}

/** Whether an entity name says the expected name (module comment: names). */
export function nameMatches(got: string, expected: string): boolean {
  return expected.split("|").some((alt) => {
    if (phraseMatches(got, alt)) return true;
    const have = tokens(got);
    const want = tokens(alt);
    if (!want.length || !want.every((w) => have.includes(w))) return false;
    return VALUE.test(alt) || have.length - want.length <= 2;
  });
}

interface Triple {
  subject: string;
  relation: string;
  object: string;
}

/** Whether one edge, named, says the expected fact through its relation family (module comment). */
function tripleSays(t: Triple, want: FactExpectation): boolean {
  const got = readRelation(t.relation);
  if (got.negative) return false;
  if (VALUE.test(want.object) && want.relation !== "schedule")
    return nameMatches(t.subject, want.subject) && nameMatches(t.object, want.object);
  const expected = readRelation(want.relation);
  for (const e of expected.families)
    for (const g of got.families) {
      if (e.family !== g.family) continue;
      const forward = nameMatches(t.subject, want.subject) && nameMatches(t.object, want.object);
      const inverse = nameMatches(t.object, want.subject) && nameMatches(t.subject, want.object);
      const either = e.direction === "either" || g.direction === "either";
      if (either ? forward || inverse : e.direction === g.direction ? forward : inverse) return true;
    }
  return false;
}

const SCHEDULE_STOP = new Set([
  "every",
  "each",
  "at",
  "on",
  "the",
  "a",
  "an",
  "in",
  "of",
  "o'clock",
  "clock",
  "and",
  "from",
  "by",
  "starting",
]);
const SCHEDULE_WORDS: Record<string, string> = {
  nightly: "night",
  daily: "day",
  weekly: "week",
  monthly: "month",
  hourly: "hour",
  noon: "12 pm",
  midnight: "12 am",
};

/** Time words of a schedule phrase, clock times in one 12-hour form ("02:00" and "2am" -> "2 am"). */
export function scheduleWords(text: string): string[] {
  const clock = text
    .toLowerCase()
    .replace(/_/g, " ")
    .replace(
      /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?=\W|$)/g,
      (all, h: string, m: string | undefined, ap: string | undefined) => {
        if (!m && !ap) return all; // a bare number is not a time
        let hour = Number(h);
        let half = ap?.replace(/\./g, "");
        if (!half) {
          half = hour >= 12 ? "pm" : "am";
          hour = hour % 12 || 12;
        }
        return `${hour}${m && m !== "00" ? `:${m}` : ""} ${half}`;
      },
    );
  return clock
    .split(/[^a-z0-9:']+/)
    .map((w) => SCHEDULE_WORDS[w] ?? w.replace(/^(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend)s$/, "$1"))
    .flatMap((w) => w.split(" "))
    .filter((w) => w && !SCHEDULE_STOP.has(w));
}

function scheduleSays(t: Triple, want: FactExpectation): boolean {
  if (readRelation(t.relation).negative || !nameMatches(t.subject, want.subject)) return false;
  const have = new Set(scheduleWords(`${t.subject} ${t.relation} ${t.object}`));
  return want.object.split("|").some((alt) => scheduleWords(alt).every((w) => have.has(w)));
}

/** "s is CTO of o" in one edge, or "s is CTO" beside "s works_at o" (module comment: roles). */
function roleSays(visible: Triple[], want: FactExpectation, role: string): boolean {
  const holders = visible.filter(
    (t) => holdsRole(t.relation) && nameMatches(t.subject, want.subject) && roleWords(t.object).includes(role),
  );
  // "Acme's chief financial officer" names Acme as "CFO of Acme" does
  const bare = (phrase: string) => tokens(phrase).map((w) => w.replace(/'s$/, ""));
  if (holders.some((t) => want.object.split("|").some((alt) => bare(alt).every((w) => bare(t.object).includes(w))))) return true;
  if (!holders.length) return false;
  const works = { subject: want.subject, relation: "works_at", object: want.object, valid: true };
  return visible.some((t) => tripleSays(t, works));
}

export function factSaid(visible: Triple[], want: FactExpectation): boolean {
  if (want.relation === "schedule") return visible.some((t) => scheduleSays(t, want));
  if (visible.some((t) => tripleSays(t, want))) return true;
  const role = roleOf(want.relation);
  return role !== null && roleSays(visible, want, role);
}

type Named = Triple & { edge: RecallEdge };

/** Recall's edges with their ends named from its `entities`. */
function named(answer: RecallAnswer): Named[] {
  const names = new Map(answer.entities.map((e) => [e.id, e.name]));
  return answer.edges.map((edge) => ({
    subject: names.get(edge.source) ?? "",
    relation: edge.relation,
    object: names.get(edge.target) ?? "",
    edge,
  }));
}

/** The edges recall returned that are visible at the question's point, with their ends named. */
export function visibleTriples(answer: RecallAnswer, asOf: number, knownAt: number): Named[] {
  return named(answer).filter(({ edge: e }) =>
    edgeVisibleAt(
      { tValid: ms(e.tValid), tInvalid: ms(e.tInvalid), tIngested: Date.parse(e.tIngested), tExpired: ms(e.tExpired) },
      asOf,
      knownAt,
    ),
  );
}

const show = (t: Named) =>
  `${t.subject} -${t.relation}-> ${t.object} [${t.edge.tValid?.slice(0, 10) ?? "…"}..${t.edge.tInvalid?.slice(0, 10) ?? "…"}]`;

/** Scores one expectation (module comment). */
export function scoreExpectation(expect: Expectation, answer: RecallAnswer, cx: ScoreContext): QuestionScore {
  if ("noFactFrom" in expect) {
    const ep = cx.episodes[expect.noFactFrom]!;
    const made = [...new Set([...ep.edgeIds, ...answer.edges.filter((e) => e.episodeId === ep.id).map((e) => e.id)])];
    const shown = named(answer).filter((t) => made.includes(t.edge.id));
    return { correct: made.length === 0, detail: made.length ? `made ${made.length} edge(s): ${shown.map(show).join("; ")}` : "" };
  }
  if ("cites" in expect) {
    const id = cx.episodes[expect.cites]!.id;
    const ok = answer.episodes.some((e) => e.id === id);
    return { correct: ok, detail: ok ? "" : `episode of statement ${expect.cites} not among ${answer.episodes.length} recalled` };
  }
  const visible = visibleTriples(answer, cx.asOf, cx.knownAt);
  const said = factSaid(visible, expect);
  if (said === expect.valid) return { correct: true, detail: "" };
  const near = visible.filter((t) => [t.subject, t.object].some((n) => nameMatches(n, expect.subject) || nameMatches(n, expect.object)));
  return { correct: false, detail: `${said ? "said" : "missing"}; near: ${near.map(show).join("; ") || "none"}` };
}
