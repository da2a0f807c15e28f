// Values as objects (docs/memory.md#what-changed): a clause whose object is a value a subject has one of at a time
// names that value's slot as its relation, so a later value supersedes it whatever verb says it. "Globex is on the
// Team plan" and "Globex upgraded to the Business plan" both say `plan`; "The API gateway runs Envoy 1.28" and "We
// upgraded the API gateway to Envoy 1.30" both say `envoy_version`; "Hooli has 40 seats" says `seats` 40; "The Pro
// plan costs $49" says `price`; "Maya lives at 22 Baker Road" says `address`. A change verb ("upgrade", "switch",
// "move") says the value starts then.
import { isValueRelation } from "../../domain/relations.js";
import type { NounPhrase } from "./chunks.js";
import { valueRelation } from "./roles.js";

/** Verbs (lemma) of a change to a new value: the clause tells when the value began. */
export const CHANGE_VERB = /^(upgrade|downgrade|switch|move|migrate|change|update|bump|roll|sign|subscribe|convert|port)$/;
/** Verbs and copulas that hold a value: "is on", "runs", "uses", "costs", "is priced at". */
const HOLD_VALUE = /^(is_on|is_at|be_on|be_at|run|run_on|use|stay_on|remain_on|have)$/;
/** A product name and its version: "Envoy 1.28", "PostgreSQL 16", "Node 20", "Kubernetes v1.29". */
const VERSIONED = /^((?:\p{Lu}[\p{L}\p{N}.+#-]*\s){1,2})v?\d+(?:\.\d+){0,3}$/u;
/** A street address: a house number and capitalised words ("22 Baker Road", "18 Via Roma"). */
const ADDRESS = /^\d+[a-z]?\s+\p{Lu}/u;
/** A count of a value noun: "40 seats", "12 licences". */
const COUNTED = /^(\d[\d,.]*)\s+(\w+)$/;

export interface ValueAssertion {
  relation: string;
  /** The value itself when the phrase carries its noun ("40 seats" -> 40). */
  object: NounPhrase | null;
  starts: boolean;
}

const slug = (words: string) => words.toLowerCase().replace(/[^a-z0-9]+/g, "");

/** A phrase that names a value of a slot: a versioned product or a value noun's phrase ("the Business plan"). */
export const namesValue = (np: NounPhrase) => !np.pronoun && (VERSIONED.test(np.text) || headSlot(np.text) !== null);

/** The slot a phrase's head noun names: "Business plan" -> plan; a bare "plan" names none. */
function headSlot(text: string): string | null {
  if (!text.includes(" ")) return null;
  const relation = valueRelation(text.split(/\s+/).at(-1) ?? "");
  return relation && isValueRelation(relation) && !/^(number|contact|title)$/.test(relation) ? relation : null;
}

/**
 * The value slot a clause's object names, when its verb (`lemma`, and `relation` slug: "upgrade_to") holds or changes
 * a value; null otherwise.
 */
export function valueAssertion(relation: string, lemma: string | null, object: NounPhrase): ValueAssertion | null {
  const verb = lemma ?? relation.split("_")[0] ?? "";
  const change = CHANGE_VERB.test(verb) && /_(to|for)$/.test(relation);
  const holds = HOLD_VALUE.test(relation);
  const text = object.text;
  if (object.pronoun || (!change && !holds && !/^(cost|priced_at|is_priced_at|be_priced_at|price_at)$/.test(relation))) return null;
  // "costs $49 a month", "is priced at €12"
  if (!change && !holds) return /\d/.test(text) ? { relation: "price", object: null, starts: false } : null;
  // "upgraded to PostgreSQL 16", "runs Envoy 1.28"
  const version = VERSIONED.exec(text);
  if (version && verb !== "have") return { relation: `${slug(version[1]!)}_version`, object: null, starts: change };
  // "40 seats": the count is the value
  const counted = COUNTED.exec(text);
  if (counted && verb === "have" && !object.det) {
    const slot = valueRelation(counted[2]!);
    if (slot) return { relation: slot, object: { ...object, text: counted[1]!, tokens: object.tokens.slice(0, 1) }, starts: false };
  }
  // "uses the enterprise plan" stays a use; "uses Node 18" is the version it runs
  if (verb === "have" || verb === "use") return null;
  // "the Business plan", "the Enterprise tier": the head noun is the slot
  const slot = headSlot(text);
  return slot ? { relation: slot, object: null, starts: change } : null;
}

/** "lives at 22 Baker Road": living at a numbered street is an address, one at a time. */
export const isAddress = (relation: string, object: NounPhrase) =>
  /^(live_at|reside_at|stay_at)$/.test(relation) && ADDRESS.test(object.text);
