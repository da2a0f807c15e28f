// Relation families for scoring the labelled histories: which relation names (and directions) say the
// same thing, so an expectation written once matches whatever name an extractor picks for it. General by
// design: families of synonyms, a rule for role nouns and one for noun-named relations, never a history's
// own wording.
//
// Reading of a relation name (after `normaliseRelation`'s lower-case and `_`):
// - a negative or past marker in front (`not_`, `no_longer_`, `never_`, `used_to_`, `formerly_`, `former_`,
//   `ex_`, `stopped_`) makes the edge negative: it never matches a positive expectation;
// - leading auxiliaries and adverbs (`is_`, `was_`, `has_`, `currently_`, `now_`, `still_`, `also_`, `be_`,
//   `became_`, `serves_as_`, `works_as_`, `acts_as_`, `named_`, `appointed_`, `promoted_to_`) are dropped, and
//   the first word loses a third-person `s` (`drinks_` -> `drink_`, `lives_in` -> `live_in`);
// - the result is looked up in FAMILIES: each member says whether `(s, r, o)` reads forward (s r o),
//   inverse (o r s: `owned_by`, and a noun naming what the object is to the subject, `manager`: "s's
//   manager is o") or either (a word that is both verb and noun: `lead`, `head`);
// - a role noun (ROLES) gives the family `role:<noun>`: `cto_of`, `vp_of_engineering_at` (role first,
//   preposition last) forward, bare `cto` inverse (`became_cto` forward);
// - any other name is its own family, forward.
// A key may sit in several families (`join` is in works_at and member_of): a match in any counts.

export type Direction = "forward" | "inverse" | "either";
export interface RelationReading {
  negative: boolean;
  /** Family name and direction of each family the relation belongs to. */
  families: Array<{ family: string; direction: Direction }>;
}

const NEGATIVE = /^(not|no_longer|never|used_to|formerly|former|ex|stopped|no_more|quit|previously)_/;
const LEADING = /^(is|are|was|were|be|been|has|have|had|currently|now|still|also|the|a|an)_/;
/** Verbs that make the role noun after them a predicate of the subject ("became_cto" at an organisation). */
const ROLE_VERB =
  /^(became|become|becomes|serves_as|serve_as|works_as|work_as|acts_as|act_as|named|named_as|appointed|appointed_as|promoted_to|hired_as|joined_as)_/;

/** `f:` forward, `i:` inverse, `e:` either; members are written as relation names and keyed like edges are. */
const FAMILIES: Record<string, string[]> = {
  location: [
    "f:lives_in f:live_in f:lives_at f:resides_in f:based_in f:moved_to f:relocated_to f:settled_in f:located_in f:located_at",
    "f:headquartered_in f:hq_in f:home_in f:home f:living_in f:stays_in f:hosted_in f:deployed_in f:deployed_to f:runs_in f:hosted_on",
    "f:address f:address_is f:billing_address f:shipping_address f:office_in f:office_at f:lives f:location f:city f:in f:stored_in",
    "f:kept_in f:stored_on f:stored_at",
  ],
  works_at: [
    "f:works_at f:works_for f:works_in f:employed_at f:employed_by f:employee_of f:joined f:join f:hired_by f:staff_at",
    "f:worked_at f:worked_for f:employer f:job_at f:joins f:rejoined f:hired_at f:started_at f:started_working_at f:teaches_at f:teach_at",
    "i:employs i:employ i:hired i:hire i:employee i:staff",
  ],
  member_of: [
    "f:member_of f:part_of f:on f:on_team f:in f:belongs_to f:joined f:join f:works_in f:works_on f:team f:member",
    "f:assigned_to f:sits_in f:moved_to f:transferred_to i:member i:includes i:has_member",
  ],
  married_to: ["e:married_to e:marry e:married e:spouse e:spouse_of e:husband e:husband_of e:wife e:wife_of e:wed e:wed_to e:weds"],
  partner_of: ["e:partner e:partner_of e:dating e:dates e:date e:boyfriend e:girlfriend e:together_with"],
  sibling_of: ["e:sibling e:sibling_of e:brother e:brother_of e:sister e:sister_of e:twin e:twin_of"],
  parent_of: [
    "f:parent_of f:mother_of f:father_of f:mom_of f:dad_of f:son f:daughter f:child f:kid",
    "i:child_of i:son_of i:daughter_of i:parent i:mother i:father i:mom i:dad i:mum",
  ],
  leads: [
    "f:manages f:manage f:manager_of f:head_of f:lead_of f:leader_of f:directs f:direct f:director_of f:in_charge_of f:runs f:run",
    "f:oversees f:oversee f:supervises f:supervise f:heads_up f:leads_team f:boss_of e:lead e:head e:heads e:leads",
    "i:reports_to i:report_to i:reports_into i:reporting_to i:managed_by i:led_by i:run_by i:headed_by i:supervised_by",
    "i:manager i:boss i:supervisor i:leader i:director i:works_under i:directed_by f:tech_lead_of f:product_manager_for",
    "f:product_manager_of f:pm_for f:pm_of i:tech_lead i:product_manager i:pm",
  ],
  owns: [
    "f:owns f:own f:owner_of f:has f:have f:possesses f:bought f:buy f:purchased f:acquired f:acquire f:maintains f:maintain",
    "f:maintainer_of f:responsible_for f:in_charge_of f:took_over f:take_over f:keeps f:holds f:runs f:run f:ownership_of",
    "f:handles f:handle f:looks_after f:look_after i:handled_by",
    "i:owned_by i:owner i:belongs_to i:maintained_by i:maintainer i:assigned_to i:responsibility_of",
  ],
  on_call: [
    "f:on_call_for f:on_call_on f:covers f:on_duty_for f:oncall_for f:pager_for f:holds_pager_for f:carries_pager_for f:on_call_this",
    "e:on_call e:oncall i:on_call_engineer i:on_call_person i:pager",
  ],
  contact: [
    "f:contact f:main_contact f:primary_contact f:point_of_contact f:contact_person f:key_contact f:champion f:account_contact",
    "i:contact_for i:contact_at i:point_of_contact_for i:main_contact_for i:primary_contact_for i:contact_of i:champion_at",
    "i:represents i:speaks_for",
  ],
  plan: [
    "f:plan f:on_plan f:on f:subscribed_to f:subscribe_to f:subscription f:tier f:uses_plan f:upgraded_to f:downgraded_to",
    "f:switched_to f:plan_is f:moved_to f:uses f:use f:pays_for f:pay_for f:signed_up_for f:renewed",
  ],
  founded: ["f:founded f:found f:founder_of f:co_founded f:cofounded f:cofounder_of f:co_founder_of i:founder i:founded_by i:cofounder"],
  uses: [
    "f:written_in f:built_in f:coded_in f:implemented_in",
    "f:powered_by i:powers i:power f:runs f:run f:running f:uses f:use f:using f:runs_on f:built_with f:switched_to f:migrated_to f:moved_to f:on f:relies_on f:depends_on f:adopted",
  ],
  likes: ["f:likes f:like f:loves f:love f:enjoys f:enjoy f:adores f:prefers f:prefer f:fond_of f:into f:favourite f:favorite"],
  studies_at: ["f:studies_at f:study_at f:student_at f:enrolled_at f:attends f:attend f:studies_in f:goes_to"],
  engaged_to: ["e:engaged_to e:engaged e:fiance e:fiancee e:fiance_of e:fiancee_of e:betrothed_to"],
  customer_of: ["f:customer_of f:client_of f:buys_from f:customer_at i:customer i:client i:sells_to i:serves"],
  account_manager: ["f:account_manager_for f:account_manager_of f:account_manager_at f:manages_account i:account_manager i:account_owner"],
  friend_of: ["e:friend e:friend_of e:friends_with e:friends"],
};

/** Role nouns an organisation has one or a few of; `head`, `lead`, `manager`, `director` live in `leads`. */
const ROLES = new Set(
  "ceo cto cfo coo cio ciso cmo cpo cro vp president chair chairman chairwoman chairperson founder cofounder co_founder treasurer secretary principal dean captain coach editor mayor chancellor".split(
    " ",
  ),
);

/** Nouns of leading roles (family `leads`), read as roles when an edge says "s is Head of Security". */
const LEAD_NOUNS = new Set(["head", "lead", "director", "manager", "chief"]);
const ROLE_PREPOSITIONS = ["of", "at", "for", "in"];

/** Role nouns that are verbs too ("Theo coaches the team"): their bare name reads either way. */
const VERB_ROLES = new Set(["coach", "captain", "chair", "edit"]);

/** Spelled-out roles read as their abbreviation ("chief_technology_officer_of" -> "cto_of"). */
const ROLE_ALIASES: Array<[string, string]> = [
  ["chief_executive(?:_officer)?", "ceo"],
  ["chief_technology(?:_officer)?", "cto"],
  ["chief_financial(?:_officer)?", "cfo"],
  ["chief_operating(?:_officer)?", "coo"],
  ["chief_information(?:_officer)?", "cio"],
  ["chief_marketing(?:_officer)?", "cmo"],
  ["chief_product(?:_officer)?", "cpo"],
  ["vice_president", "vp"],
];
const foldRoles = (key: string, anchored: boolean): string =>
  ROLE_ALIASES.reduce((k, [src, short]) => k.replace(new RegExp(`${anchored ? "^" : "(?<=^|_)"}${src}(?=_|$)`, "g"), short), key);

/** The role words of a phrase, spelled-out roles folded ("Chief Technology Officer" -> ["cto"]). */
export function roleWords(phrase: string): string[] {
  return foldRoles(normalise(phrase), false)
    .split("_")
    .filter((w) => ROLES.has(w) || LEAD_NOUNS.has(w));
}

const normalise = (relation: string): string =>
  relation
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");

/** First word loses a third-person `s` (drinks -> drink, lives -> live, watches -> watch), nothing else. */
function stemFirst(key: string): string {
  const [first, ...rest] = key.split("_");
  if (!first || first.length <= 3 || first.endsWith("ss") || !first.endsWith("s")) return key;
  const stem = /(ch|sh|x|z)es$/.test(first) ? first.slice(0, -2) : /ies$/.test(first) ? `${first.slice(0, -3)}y` : first.slice(0, -1);
  return [stem, ...rest].join("_");
}

/** The lookup key of a relation name, whether a negative marker led it, and whether a role verb did. */
export function relationKey(relation: string): { key: string; negative: boolean; roleVerb: boolean } {
  let r = normalise(relation);
  if (NEGATIVE.test(r)) return { key: r, negative: true, roleVerb: false };
  for (let i = 0; i < 3 && LEADING.test(r) && r.replace(LEADING, ""); i++) r = r.replace(LEADING, "");
  const roleVerb = ROLE_VERB.test(r) && r.replace(ROLE_VERB, "") !== "";
  if (roleVerb) r = r.replace(ROLE_VERB, "").replace(LEADING, "");
  r = foldRoles(r, true);
  return { key: stemFirst(r), negative: false, roleVerb };
}

const INDEX = new Map<string, RelationReading["families"]>();
for (const [family, lines] of Object.entries(FAMILIES))
  for (const item of lines.join(" ").split(/\s+/)) {
    const [tag, name] = item.split(":") as [string, string];
    const direction: Direction = tag === "f" ? "forward" : tag === "i" ? "inverse" : "either";
    const { key } = relationKey(name);
    const list = INDEX.get(key) ?? [];
    if (!list.some((x) => x.family === family)) list.push({ family, direction });
    INDEX.set(key, list);
  }

/** The families a relation name belongs to (its own name when no family lists it). */
export function readRelation(relation: string): RelationReading {
  const { key, negative, roleVerb } = relationKey(relation);
  if (negative) return { negative, families: [] };
  const listed = INDEX.get(key);
  if (listed) return { negative, families: listed };
  const words = key.split("_");
  const role = words[0]!;
  if (ROLES.has(role) && words.length === 1)
    return {
      negative,
      families: [{ family: `role:${role}`, direction: roleVerb ? "forward" : VERB_ROLES.has(role) ? "either" : "inverse" }],
    };
  if (ROLES.has(role) && words.length >= 2 && ROLE_PREPOSITIONS.includes(words.at(-1)!))
    return { negative, families: [{ family: `role:${role}`, direction: "forward" }] };
  return { negative, families: [{ family: key, direction: "forward" }] };
}

/** The role noun an expectation asks for: of a `role:` family ("cto_of" -> "cto"), or a leading one ("head_of" -> "head"). */
export function roleOf(relation: string): string | null {
  const f = readRelation(relation).families.find((x) => x.family.startsWith("role:"));
  if (f) return f.family.slice(5);
  const words = relationKey(relation).key.split("_");
  return words.length === 2 && LEAD_NOUNS.has(words[0]!) && ROLE_PREPOSITIONS.includes(words[1]!) ? words[0]! : null;
}

/** Relations that say "s is/holds the role o" without naming the organisation (`has_role`, `is`, `title`). */
const ROLE_HOLDING = new Set([
  "is",
  "is_a",
  "is_an",
  "be",
  "was",
  "has_role",
  "role",
  "title",
  "position",
  "job_title",
  "job",
  "works_as",
  "serves_as",
  "became",
  "hired_as",
  "joined_as",
]);

export const holdsRole = (relation: string): boolean => ROLE_HOLDING.has(normalise(relation));
