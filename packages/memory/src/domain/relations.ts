// Relation vocabulary. A single-valued relation holds at most one target per source at a time, so a
// newer fact on it supersedes the older edge (contradiction stage); others accumulate.

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
  "birthday",
  "age",
  "email",
  "phone",
]);

export const isSingleValued = (relation: string): boolean => SINGLE_VALUED.has(relation);

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
