// Relation vocabulary. Extractors name relations by verb lemma plus particle and preposition
// ("go_out_on"); `canonicalRelation` folds the common paraphrases of one relation into one name
// ("moved to", "relocated to", "lives in" -> lives_in) so supersession and recall see them as one.
// A single-valued relation holds at most one target per source at a time, so a newer fact on it
// supersedes the older edge (contradiction stage); others accumulate.

const SINGLE_VALUED = new Set([
  "lives_in",
  "works_at",
  "married_to",
  "partner_of",
  "born_in",
  "born_on",
  "studies_at",
  "reports_to",
  "has_role",
  "located_in",
  "headquartered_in",
  "ceo_of",
  "led_by",
  "owned_by",
  "managed_by",
  "maintained_by",
  "run_by",
  "assigned_to",
  "birthday",
  "age",
  "email",
  "phone",
  "manager",
  "owner",
  "deadline",
  "status",
]);

/** "Liam's favourite band is Radiohead" then "... is Muse": one favourite at a time. */
const SINGLE_VALUED_PREFIX = /^(favou?rite|current|primary|main)_/;

export const isSingleValued = (relation: string): boolean => SINGLE_VALUED.has(relation) || SINGLE_VALUED_PREFIX.test(relation);

/** Paraphrases (lemma + preposition) of one relation, folded to its canonical name. */
const CANONICAL: Record<string, string> = {
  work_at: "works_at",
  work_for: "works_at",
  work_in: "works_at",
  employed_at: "works_at",
  employed_by: "works_at",
  hired_by: "works_at",
  live_in: "lives_in",
  live_at: "lives_in",
  move_to: "lives_in",
  relocate_to: "lives_in",
  reside_in: "lives_in",
  settle_in: "lives_in",
  based_in: "located_in",
  is_in: "located_in",
  located_in: "located_in",
  headquartered_in: "located_in",
  marry: "married_to",
  married_to: "married_to",
  is_married_to: "married_to",
  report_to: "reports_to",
  managed_by: "managed_by",
  born_in: "born_in",
  born_on: "born_on",
  study_at: "studies_at",
  study_in: "studies_at",
  graduate_from: "studies_at",
  like: "likes",
  love: "likes",
  enjoy: "likes",
  adore: "likes",
  prefer: "likes",
  is_fond_of: "likes",
  fond_of: "likes",
  hate: "dislikes",
  dislike: "dislikes",
  visit: "visited",
  go_to: "visited",
  travel_to: "visited",
  fly_to: "visited",
  drive_to: "visited",
  attend: "visited",
  paint: "created",
  draw: "created",
  write: "created",
  make: "created",
  build: "created",
  bake: "created",
  cook: "created",
  create: "created",
  own: "owns",
  buy: "owns",
  adopt: "owns",
  have: "has",
  use: "uses",
  meet: "met",
  found: "founded",
  co_found: "founded",
  speak: "speaks",
  lead: "leads",
  manage: "manages",
  play: "plays",
  learn: "learned",
};

export function canonicalRelation(relation: string): string {
  const r = normaliseRelation(relation);
  const negated = r.startsWith("not_");
  const base = negated ? r.slice(4) : r;
  const canonical = CANONICAL[base] ?? base;
  return negated ? `not_${canonical}` : canonical;
}

/** Single-valued relations that never change: a second value corrects the first rather than superseding it. */
const IMMUTABLE = new Set(["born_in", "born_on", "birthday"]);

export const isImmutable = (relation: string): boolean => IMMUTABLE.has(relation);

export const normaliseRelation = (relation: string): string =>
  relation
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 64) || "related_to";
