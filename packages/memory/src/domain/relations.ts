// Relation vocabulary and the change model's table. Extractors name relations by verb lemma plus particle and
// preposition ("go_out_on"); the table folds the paraphrases of one relation into one name ("live in", "reside in"
// -> lives_in), says which verbs start a relation ("move to", "join") or end it ("move out of", "resign from"),
// whether a plain past tense ends it ("Mei lived in Kyoto": a state, over by the telling) and how many values it
// holds at a time, per side: `subject` (one target per subject: one home), `object` (one subject per target: a
// checklist has one owner), `both` (one spouse each), `many` (accumulates). Supersession (contradiction stage) and
// deduplication read the cardinality; hosts add relations and verbs of their own (`createMemoryService({ relations })`).

export type Cardinality = "subject" | "object" | "both" | "many";

/** A relation a host adds (or extends): its name, the verbs that state, start and end it, and its cardinality. */
export interface RelationSpec {
  /** Canonical snake_case name, e.g. `mentors`. */
  name: string;
  /** Values at a time per side; default `many`. */
  cardinality?: Cardinality;
  /**
   * `state` (default for relations with `ends` verbs or a single-valued cardinality): a plain past tense ("Kim
   * mentored Ravi") ends it by the telling. `event`: the past tense is just when it happened ("Kim visited Rome").
   */
  kind?: "state" | "event";
  /** The same relation both ways (`married_to`): endings and supersession match either direction. */
  symmetric?: boolean;
  /** Verb phrases, base form, that state it holds: "mentor", "be mentor to", "look after". */
  verbs?: string[];
  /** Verb phrases of events that start it: "start mentoring", "take over". */
  starts?: string[];
  /** Verb phrases of events that end it: "stop mentoring", "hand over". */
  ends?: string[];
}

export interface RelationInfo {
  name: string;
  cardinality: Cardinality;
  kind: "state" | "event";
  symmetric: boolean;
  /** Never changes: a second value corrects the first (a birthplace). */
  immutable: boolean;
}

/** What a verb slug says: the relation it names and whether it states, starts or ends it. */
export interface VerbMeaning {
  relation: string;
  role: "holds" | "starts" | "ends";
}

type Row = [name: string, cardinality: Cardinality, kind: "state" | "event", verbs: string, starts?: string, ends?: string];

// verbs, starts and ends: slugs (lemma, particle, preposition joined by "_") separated by spaces
const BUILT_IN: Row[] = [
  [
    "lives_in",
    "subject",
    "state",
    "live_in live_at reside_in",
    "move_to relocate_to settle_in move_back_to move_in_to move_into",
    "move_out_of move_away_from move_from",
  ],
  [
    "works_at",
    "subject",
    "state",
    "work_at work_for work_in employed_at employed_by is_employed_at is_employed_by",
    "hired_by get_job_at start_work_at start_job_at",
    "resign_from retire_from fired_from laid_off_from lay_off_from lose_job_at",
  ],
  ["studies_at", "subject", "state", "study_at enrolled_at study_in graduate_from", "enroll_at enroll_in", "drop_out_of"],
  [
    "married_to",
    "both",
    "state",
    "married_to is_married_to",
    "marry get_married_to get_married wed",
    "divorce get_divorced get_divorced_from divorced_from separate_from",
  ],
  [
    "partner_of",
    "both",
    "state",
    "date partner_of engaged_to is_engaged_to",
    "start_date get_engaged_to get_engaged",
    "break_up_with break_up split_up_with split_up split_from",
  ],
  ["reports_to", "subject", "state", "report_to"],
  ["manages", "object", "state", "manage"],
  ["leads", "object", "state", "lead"],
  ["owns", "object", "state", "own", "buy adopt acquire purchase", "sell give_away"],
  ["maintains", "object", "state", "maintain"],
  ["coach_of", "object", "state", "coach"],
  ["responsible_for", "object", "state", "responsible_for be_responsible_for in_charge_of"],
  ["on_call_for", "object", "state", "on_call_for be_on_call_for"],
  ["located_in", "subject", "state", "is_in located_in headquartered_in based_in"],
  ["member_of", "many", "state", "is_member_of belong_to"],
  ["born_in", "subject", "event", "born_in"],
  ["born_on", "subject", "event", "born_on"],
  ["likes", "many", "event", "like love enjoy adore prefer is_fond_of fond_of"],
  ["dislikes", "many", "event", "hate dislike"],
  ["visited", "many", "event", "visit go_to travel_to fly_to drive_to attend"],
  ["created", "many", "event", "paint draw write make build bake cook create"],
  ["has", "many", "event", "have"],
  ["uses", "many", "event", "use", "switch_to"],
  ["met", "many", "event", "meet"],
  ["founded", "many", "event", "found co_found"],
  ["speaks", "many", "event", "speak"],
  ["plays", "many", "event", "play"],
  ["learned", "many", "event", "learn"],
  ["schedule", "subject", "state", ""],
  ["sibling_of", "many", "state", ""],
  ["parent_of", "many", "state", ""],
  ["child_of", "many", "state", ""],
  ["friend_of", "many", "state", ""],
  ["relative_of", "many", "state", ""],
];

/** Single-valued names with no verbs of their own (possessed values: "Zara's email is ..."). */
const SUBJECT_VALUED =
  "has_role birthday age email phone address manager owner deadline status led_by owned_by maintained_by run_by managed_by assigned_to";

/** Relations of one value per subject whatever else they are: "favourite band", "current project". */
const SINGLE_VALUED_PREFIX = /^(favou?rite|current|primary|main)_/;

/** A possessed value named by its noun ("support_email", "billing_address", "mobile_number"): one at a time. */
const VALUE_NOUN =
  /^([a-z]+_)?(email|email_address|address|phone|phone_number|number|mobile|mobile_number|plan|tier|timezone|time_zone|website|url|handle|username|title|salary|price|seats|version|main_contact|contact)$/;

/** A relation naming a value a subject has one of at a time: "support_email", "favourite_band", "seats". */
export const isValueRelation = (relation: string): boolean => SINGLE_VALUED_PREFIX.test(relation) || VALUE_NOUN.test(relation);

/** Roles an organisation has one holder of: "Sofia is the CTO of Bluebird" -> cto_of, one CTO per company. */
export const UNIQUE_ROLES = new Set(
  "ceo cto cfo coo cmo cio ciso cpo president chair chairman chairwoman chairperson founder owner head director manager lead leader principal captain coach mayor treasurer secretary editor maintainer dean superintendent".split(
    " ",
  ),
);
/** A role relation, holder first: "cto_of", "tech_lead_of", "account_manager_at" (the role's last word decides). */
const ROLE_RELATION = /^(?:[a-z0-9]+_){0,2}([a-z]+)_(?:of|at|for)$/;

const SYMMETRIC = new Set(["married_to", "partner_of", "sibling_of", "friend_of", "relative_of"]);
const IMMUTABLE = new Set(["born_in", "born_on", "birthday"]);

export const normaliseRelation = (relation: string): string =>
  relation
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 64) || "related_to";

/** A verb phrase as the extractors spell it: "Move out of" -> move_out_of. */
const verbSlug = (phrase: string) => normaliseRelation(phrase.replace(/^(to )/i, ""));

export interface RelationTable {
  info(relation: string): RelationInfo;
  /** The relation and role a verb slug names, after the host's verbs and the built-in ones; null when unknown. */
  verb(slug: string): VerbMeaning | null;
  /** The canonical name of a relation slug (paraphrases folded); negation prefixes kept. */
  canonical(relation: string): string;
  /** The host's relations, as given (plain data: crosses to the extraction threads). */
  readonly custom: readonly RelationSpec[];
}

function buildTable(custom: readonly RelationSpec[]): RelationTable {
  const infos = new Map<string, RelationInfo>();
  const verbs = new Map<string, VerbMeaning>();
  const put = (name: string, cardinality: Cardinality, kind: "state" | "event", symmetric = SYMMETRIC.has(name)) =>
    infos.set(name, { name, cardinality, kind, symmetric, immutable: IMMUTABLE.has(name) });
  const addVerbs = (relation: string, role: VerbMeaning["role"], list: readonly string[]) => {
    for (const v of list) if (v.trim()) verbs.set(verbSlug(v), { relation, role });
  };
  for (const [name, cardinality, kind, holds, starts, ends] of BUILT_IN) {
    put(name, cardinality, kind);
    addVerbs(name, "holds", holds.split(" "));
    addVerbs(name, "starts", (starts ?? "").split(" "));
    addVerbs(name, "ends", (ends ?? "").split(" "));
  }
  for (const name of SUBJECT_VALUED.split(" ")) if (!infos.has(name)) put(name, "subject", "state");
  // the host's table last: its verbs and cardinalities win over the built-in ones
  for (const spec of custom) {
    const name = normaliseRelation(spec.name);
    const prev = infos.get(name);
    const cardinality = spec.cardinality ?? prev?.cardinality ?? "many";
    const kind = spec.kind ?? prev?.kind ?? (spec.ends?.length || cardinality !== "many" ? "state" : "event");
    put(name, cardinality, kind, spec.symmetric ?? prev?.symmetric ?? false);
    addVerbs(name, "holds", [spec.name, ...(spec.verbs ?? [])]);
    addVerbs(name, "starts", spec.starts ?? []);
    addVerbs(name, "ends", spec.ends ?? []);
  }
  const info = (relation: string): RelationInfo => {
    const known = infos.get(relation);
    if (known) return known;
    const role = ROLE_RELATION.exec(relation);
    if (role && UNIQUE_ROLES.has(role[1]!))
      return { name: relation, cardinality: "object", kind: "state", symmetric: false, immutable: false };
    const single = isValueRelation(relation);
    return {
      name: relation,
      cardinality: single ? "subject" : "many",
      kind: single ? "state" : "event",
      symmetric: false,
      immutable: false,
    };
  };
  const verb = (slug: string): VerbMeaning | null => verbs.get(slug) ?? null;
  const canonical = (relation: string): string => {
    const r = normaliseRelation(relation);
    const negated = r.startsWith("not_");
    const base = negated ? r.slice(4) : r;
    const m = verbs.get(base);
    const name = m && m.role !== "ends" ? m.relation : base;
    return negated ? `not_${name}` : name;
  };
  return { info, verb, canonical, custom };
}

const tables = new Map<string, RelationTable>();

/** The relation table with a host's relations added; the same table for the same specs (cached by content). */
export function relationTable(custom: readonly RelationSpec[] = []): RelationTable {
  const key = custom.length ? JSON.stringify(custom) : "";
  let t = tables.get(key);
  if (!t) {
    if (tables.size > 32) tables.clear();
    t = buildTable(custom);
    tables.set(key, t);
  }
  return t;
}

/** The built-in table's answers, for code without a host table. */
export const isSingleValued = (relation: string): boolean => relationTable().info(relation).cardinality !== "many";

export function canonicalRelation(relation: string): string {
  return relationTable().canonical(relation);
}

export const isImmutable = (relation: string): boolean => IMMUTABLE.has(relation);
