// The change model of a clause (docs/memory.md#what-changed): which relation it asserts, with which polarity and
// aspect. The verb says whether the statement holds a relation ("lives in"), starts it ("moved to", "got married")
// or ends it ("resigned from", "divorced"); negation, "no longer"/"anymore", "stopped -ing" and "used to" change
// that; the tense says whether a state held only before the telling ("Mei lived in Kyoto") or will start.
import type { RelationTable } from "../../domain/relations.js";
import type { EntityKind } from "../../domain/types.js";
import { isInstruction } from "../../text/instructions.js";
import type { Aspect, Polarity } from "../types.js";
import type { NounPhrase, VerbGroup } from "./chunks.js";
import type { Clause } from "./clauses.js";
import { valueRelation } from "./roles.js";

export interface Assertion {
  relation: string;
  polarity: Polarity;
  aspect: Aspect;
}

/** What the whole sentence says about change: "no longer", "anymore", "any more", "any longer". */
export interface SentenceCues {
  ended: boolean;
  /** "no longer": a negation the tagger does not attach to the verb. */
  noLonger: boolean;
  /** A period of the subject's past ("as a child", "back then", "once"): a past tense there is a state that is over. */
  bygone: boolean;
}

const ENDED_CUE = /\b(no longer|any ?more|any longer)\b/i;
const BYGONE_CUE =
  /\b(as an? (child|kid|teen|teenager|student|boy|girl|youngster)|when (he|she|i|we|they) (was|were) (young|little|younger|a kid|a child|at school)|back then|in those days|at the time|formerly|previously|in the past|(was|were|had) once|once (was|were|had|\w+ed))\b/i;

export const sentenceCues = (text: string): SentenceCues => ({
  ended: ENDED_CUE.test(text),
  noLonger: /\bno longer\b/i.test(text),
  bygone: BYGONE_CUE.test(text),
});

/**
 * Verbs whose simple past tells a state that held for a while, not an event ("Our CI ran on Travis", "Bea handled the
 * Stark account", "Search was powered by Algolia"): over by the telling, as a past state of the relation table is.
 */
const STATIVE =
  /^(run|use|host|power|handle|serve|support|teach|belong|depend|rely|hold|keep|store|cover|own|manage|lead|maintain|sponsor|fund|back|employ|house|contain|include|cost|charge|require|need|mean|know|live|stay|remain|be)$/;

/** A past tense that ends a state the relation table does not know (STATIVE, a period cue, a passive with a place). */
function pastState(c: Clause, raw: string, table: RelationTable, cues: SentenceCues): boolean {
  if (cues.bygone) return true;
  if (table.verb(raw)) return false;
  const lemma = c.verb.main?.lemma ?? "";
  // "Backups were stored in S3", "The app was written in Objective-C": a passive with where or in what it was
  if (c.verb.passive && /_(in|on|at|with|through|inside)$/.test(raw)) return true;
  return STATIVE.test(lemma);
}

type Tense = "past" | "present" | "future";

const PRESENT_AUX = /^(is|are|am|'s|'re|'m|do|does|has|have|'ve)$/;
const PAST_AUX = /^(was|were|did|had|'d)$/;

/** The tense of a verb group: auxiliaries first ("will", "was", "has"), else the main verb's form. */
export function tenseOf(vg: VerbGroup): Tense {
  const words = vg.tokens.map((t) => t.lower);
  if (words.some((w) => w === "will" || w === "shall" || w === "'ll") || vg.chain[0] === "go") return "future";
  const aux = vg.tokens.filter((t) => t.pos === "AUX" || t.lemma === "do" || t.lemma === "have");
  if (aux.some((t) => PAST_AUX.test(t.lower))) return "past";
  if (aux.some((t) => PRESENT_AUX.test(t.lower))) return "present";
  const main = vg.main;
  if (main && main.lower !== main.lemma && !main.lower.endsWith("s") && !main.lower.endsWith("ing")) return "past";
  return "present";
}

/** Verbs whose relation depends on what is left or joined: a place, an employer, a group. */
function leaveOrJoin(raw: string, target: NounPhrase, kind: EntityKind): Assertion["relation"] | null {
  if (/_job_at$/.test(raw)) return "works_at";
  if (kind === "place") return "lives_in";
  if (kind === "person") return null;
  if (kind === "organization" || (target.proper && kind !== "date")) return "works_at";
  return "member_of";
}

/** Verbs that end what links their subject and object, whatever the relation: "cancelled its plan". */
const END_ANY = /^(cancel|terminate|discontinue|abandon|end|drop_out_of|give_up)$/;

const CHAIN_ASPECT: Record<string, Aspect> = {
  use: "past",
  stop: "ends",
  quit: "ends",
  cease: "ends",
  finish: "ends",
  start: "starts",
  begin: "starts",
  resume: "starts",
};

/** The assertion of a clause; null when it asserts nothing the graph keeps ("didn't leave"). */
export function assertionOf(c: Clause, table: RelationTable, cues: SentenceCues, targetKind: EntityKind): Assertion | null {
  let raw = c.relation;
  let forced: Aspect | null = null;
  const chain = c.verb.chain[0];
  if (chain && (CHAIN_ASPECT[chain] || chain === "go") && raw.startsWith(`${chain}_to_`)) {
    raw = raw.slice(chain.length + 4);
    forced = CHAIN_ASPECT[chain] ?? null;
  } else if (chain && (c.schedule || c.verb.be)) {
    // "The job used to run at 6 am", "Initech used to be on the Starter plan": the schedule or the copula names no
    // verb, the chain still says it is over
    forced = CHAIN_ASPECT[chain] ?? null;
  }
  const tense = tenseOf(c.verb);
  let relation: string;
  let role: "holds" | "starts" | "ends" = "holds";
  const base = raw.replace(/_job_at$/, "");
  if (base === "start_at" && (targetKind === "organization" || (c.object.proper && targetKind !== "date" && targetKind !== "place"))) {
    // "Eve will start at Stripe": a job; "standups start at nine" stays a schedule
    relation = "works_at";
    role = "starts";
  } else if (/^(leave|quit|join)$/.test(base)) {
    const r = leaveOrJoin(raw, c.object, targetKind);
    if (!r) return null;
    relation = r;
    role = base === "join" ? "starts" : "ends";
    // "joined a book club" stays a membership; "joined Acme" is a job
    if (base === "join" && r === "lives_in") return null;
  } else if (END_ANY.test(base) && !table.verb(raw)) {
    // "cancelled its Enterprise plan": ends whatever links the subject to it (the pipeline matches the pair)
    relation = base;
    role = "ends";
  } else {
    const m = table.verb(raw);
    relation = m ? m.relation : table.canonical(raw);
    role = m?.role ?? "holds";
  }
  const negated = c.negated || c.verb.negated || cues.noLonger;
  const noLonger = cues.ended || c.verb.tokens.some((t) => t.lower === "no longer");
  if (negated) {
    if (role !== "holds" || forced === "ends" || forced === "starts") return null;
    return { relation, polarity: "negative", aspect: noLonger ? "ends" : "holds" };
  }
  if (forced === "past") return { relation, polarity: "positive", aspect: "past" };
  if (forced === "ends" || role === "ends" || c.ends) return { relation, polarity: "positive", aspect: "ends" };
  if (forced === "starts" || role === "starts" || c.starts)
    return { relation, polarity: "positive", aspect: tense === "future" ? "will_start" : "starts" };
  if (tense === "future") return { relation, polarity: "positive", aspect: "will_start" };
  if (tense === "past" && (table.info(relation).kind === "state" || pastState(c, raw, table, cues)))
    return { relation, polarity: "positive", aspect: "past" };
  return { relation, polarity: "positive", aspect: "holds" };
}

const VALUE_CHANGE = /^(change_to|switch_to|update_to|move_to|become|be_change_to|changed_to|updated_to|be_now|now)$/;

/** "Zara's email changed to z@new.io": the possessor's value (`email`) starts anew; the old one ends. */
export function changedValue(c: Clause): { relation: string } | null {
  if (!c.subject.possessor || c.subject.possessor.pronoun?.match(/^(its|their)$/)) return null;
  if (!VALUE_CHANGE.test(c.relation)) return null;
  const relation = valueRelation(c.subject.text) ?? c.subject.text.toLowerCase().replace(/[^a-z0-9]+/g, "_");
  return relation ? { relation } : null;
}

/** A target that is a kind rather than one thing: "a dog", "his job", "dogs". */
export function isGeneric(np: NounPhrase): boolean {
  if (np.proper || np.pronoun) return false;
  if (np.det === "a" || np.det === "an" || np.det === "some" || np.det === "any" || np.det === "another") return true;
  if (/^(job|position|post|role|home|house|apartment|flat|place|partner|spouse|wife|husband|girlfriend|boyfriend)$/i.test(np.text))
    return true;
  return !np.det && !np.possessor && /s$/i.test(np.text) && !/ss$/i.test(np.text);
}

/** Relatives and roles that introduce a person: "my brother Tom" -> Tom sibling_of the speaker. */
const KIN: Record<string, string> = {
  brother: "sibling_of",
  sister: "sibling_of",
  sibling: "sibling_of",
  twin: "sibling_of",
  mother: "parent_of",
  father: "parent_of",
  mom: "parent_of",
  mum: "parent_of",
  dad: "parent_of",
  parent: "parent_of",
  son: "child_of",
  daughter: "child_of",
  child: "child_of",
  kid: "child_of",
  wife: "married_to",
  husband: "married_to",
  spouse: "married_to",
  partner: "partner_of",
  boyfriend: "partner_of",
  girlfriend: "partner_of",
  fiance: "partner_of",
  fiancee: "partner_of",
  friend: "friend_of",
  cousin: "relative_of",
  aunt: "relative_of",
  uncle: "relative_of",
  niece: "relative_of",
  nephew: "relative_of",
  grandmother: "relative_of",
  grandfather: "relative_of",
  grandma: "relative_of",
  grandpa: "relative_of",
  boss: "manages",
  manager: "manages",
  colleague: "colleague_of",
  coworker: "colleague_of",
  roommate: "roommate_of",
  neighbour: "neighbour_of",
  neighbor: "neighbour_of",
  mentor: "mentor_of",
};

export const kinRelation = (word: string): string | null => KIN[word.toLowerCase()] ?? null;

/** "brother Tom" of "my brother Tom": the relative word and the name after it; null for other phrases. */
export function relativeName(np: NounPhrase): { kin: string; name: string } | null {
  if (!np.possessor) return null;
  const body = np.tokens.filter((t) => t.pos !== "DET");
  if (body.length < 2) return null;
  const kin = kinRelation(body[0]!.lower);
  if (!kin || !body.slice(1).every((t) => t.pos === "PROPN")) return null;
  return {
    kin,
    name: body
      .slice(1)
      .map((t) => t.text)
      .join(" "),
  };
}

/** An instruction ("Always tag the on-call engineer..."): a rule a playbook cites, never a graph edge. */
export function isInstructionClause(text: string, first: VerbGroup | null): boolean {
  if (/\?\s*$/.test(text)) return false;
  if (isInstruction(text)) return true;
  return (
    first !== null &&
    first.main !== null &&
    first.main.lower === first.main.lemma &&
    /^\p{Lu}/u.test(first.tokens[0]!.text) &&
    first.tokens[0] === first.main
  );
}
