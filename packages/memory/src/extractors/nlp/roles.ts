// Role phrases: "the CEO of Hooli", "the new manager of the data team", "the mobile team's tech lead", "our main
// contact at Hooli". A definite role names the one holder a group has, so the clause that names it becomes one
// relation per role whatever the wording: the holder first (`ceo_of`, `tech_lead_of`, `account_manager_of`), or, for
// the agent noun of a known verb, that verb's relation (`manager` -> `manages`, `owner` -> `owns`); a contact is a
// value of the group (`Hooli -main_contact-> Gavin`), as "Hooli's main contact is Gavin" says it. Values are named
// alike: "her new address", "his mobile number", "its support email address" -> address, mobile, support_email.
import { isValueRelation, UNIQUE_ROLES } from "../../domain/relations.js";
import type { NounPhrase } from "./chunks.js";

/** Words before a role that say when it holds, not what it is: "the new manager", "the acting CEO". */
const MODIFIERS = /^(new|current|acting|interim|permanent|official|sole|present)$/i;
/** Words that make the role a past one: never read as the holder now. */
const FORMER = /^(former|previous|old|ex|outgoing|past|late)$/i;
/** Spelled-out roles read as their usual name. */
const ALIASES: Array<[RegExp, string]> = [
  [/^chief_executive(_officer)?$/, "ceo"],
  [/^chief_technology(_officer)?$/, "cto"],
  [/^chief_financial(_officer)?$/, "cfo"],
  [/^chief_operating(_officer)?$/, "coo"],
  [/^on_call(_engineer|_person|_developer)?$/, "on_call"],
  [/^(lead|leader|head)$/, "leads"],
  [/^manager$/, "manages"],
  [/^owner$/, "owns"],
  [/^maintainer$/, "maintains"],
];
/** Heads of roles a group has one holder of at a time, beside the relation table's UNIQUE_ROLES. */
const ROLE_HEADS = new Set(["coach", "contact", "lead", "leader", "owner", "manager", "vp", "svp", "evp"]);
/** Values of the group rather than positions someone holds: the group comes first. */
const VALUE_ROLES = /(^|_)(contact|point_of_contact)$/;
/** Kin and friends are no roles: "the brother of Ann" names no position. */
const KIN = /^(brother|sister|son|daughter|father|mother|parent|child|friend|cousin|uncle|aunt|wife|husband|partner|niece|nephew)$/i;

export interface Role {
  /** The relation, holder first (or the group first when `groupFirst`). */
  relation: string;
  /** A contact-like value: the relation reads group -> holder. */
  groupFirst: boolean;
}

const slugOf = (words: string[]) =>
  words
    .join("_")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");

/**
 * The role a noun phrase names, when it names one: at most three words after the modifiers, its last word a role
 * noun, and definite (`the`, a possessor, or no determiner: "CEO of Hooli") unless `indefinite` allows "a new coach".
 */
export function roleOf(np: NounPhrase, { indefinite = false } = {}): Role | null {
  if (np.pronoun) return null;
  if (np.det && np.det !== "the" && !(indefinite && (np.det === "a" || np.det === "an"))) return null;
  let words = np.text.split(/\s+/).filter(Boolean);
  if (words.some((w) => FORMER.test(w))) return null;
  const modified = words.length > 0 && MODIFIERS.test(words[0]!);
  while (words.length && MODIFIERS.test(words[0]!)) words = words.slice(1);
  // "a coach" is no position of a group; "a new coach" is (the holder changed)
  if (indefinite && (np.det === "a" || np.det === "an") && !modified) return null;
  if (!words.length || words.length > 3 || KIN.test(words.at(-1)!)) return null;
  const head = words.at(-1)!.toLowerCase();
  let slug = slugOf(words);
  const alias = ALIASES.find(([pattern]) => pattern.test(slug));
  if (!alias && !UNIQUE_ROLES.has(head) && !ROLE_HEADS.has(head)) return null;
  if (alias) slug = alias[1];
  if (VALUE_ROLES.test(slug)) return { relation: slug, groupFirst: true };
  if (/^(leads|manages|owns|maintains)$/.test(slug)) return { relation: slug, groupFirst: false };
  if (slug === "on_call") return { relation: "on_call_for", groupFirst: false };
  return { relation: `${slug}_of`, groupFirst: false };
}

/** Value nouns spelled several ways, read as one name (a qualifier in front is kept: "work_phone"). */
const VALUE_ALIASES: Array<[RegExp, string]> = [
  [/(^|_)(phone_number|telephone_number|telephone|number)$/, "$1phone"],
  [/(^|_)(mobile_number|mobile_phone|cell_phone|cellphone|cell)$/, "$1mobile"],
  [/(^|_)(email_address|e_mail)$/, "$1email"],
  [/^(home_address|postal_address|street_address)$/, "address"],
  [/(^|_)version_number$/, "$1version"],
];

/** The value a noun phrase names, as a relation ("her new address" -> address); null when it names no value. */
export function valueRelation(text: string): string | null {
  let words = text.split(/\s+/).filter(Boolean);
  while (words.length && MODIFIERS.test(words[0]!)) words = words.slice(1);
  if (!words.length || words.length > 3 || words.some((w) => FORMER.test(w))) return null;
  let slug = slugOf(words);
  for (const [pattern, to] of VALUE_ALIASES) slug = slug.replace(pattern, to);
  return isValueRelation(slug) ? slug : null;
}
