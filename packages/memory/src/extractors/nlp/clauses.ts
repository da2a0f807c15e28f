// Clause patterns over chunks: subject-verb-object, passive ("X is owned by Y"), copula with a noun
// or an adjective ("Melanie is a painter", "Tom is allergic to peanuts"), possessive copula ("Liam's
// favourite band is Radiohead"), relative clauses ("who loves camping") and coordination on both sides.
import type { Chunk, NounPhrase, VerbGroup } from "./chunks.js";
import type { Token } from "./parse.js";
import { type Role, roleOf, valueRelation } from "./roles.js";
import { schedulePhrase } from "./schedule.js";
import { CHANGE_VERB, namesValue } from "./values.js";

export interface Clause {
  subject: NounPhrase;
  /** Relation before canonicalisation: verb lemma plus particle and preposition ("go_out_on"). */
  relation: string;
  object: NounPhrase;
  negated: boolean;
  /** The clause's verb group: its tense and auxiliaries say when the relation holds (the change model). */
  verb: VerbGroup;
  /** "Lin and Sam divorced": the two subjects of an intransitive verb, one the other's object. */
  reciprocal?: boolean;
  /** A recurring time ("every night at 2 am") as the object. */
  schedule?: boolean;
  /** The clause tells when the relation began, whatever its tense: "Gavin replaced Jack as CEO". */
  starts?: boolean;
  /** A role a group has one holder of: the group is one thing even when plural ("on call for payments"). */
  role?: boolean;
  /** The clause tells when the relation ended, whatever its verb: "Lars stepped down as maintainer of the SDK". */
  ends?: boolean;
}

const adjectivePhrase = (text: string): NounPhrase => ({
  type: "np",
  tokens: [],
  text,
  det: null,
  possessor: null,
  pronoun: null,
  proper: false,
  describedAs: null,
});

const slug = (...parts: Array<string | null | undefined>) =>
  parts
    .filter((p): p is string => !!p)
    .join("_")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");

/** Noun phrases coordinated from `start` ("Japanese and Korean", "A, B and C"); returns them and the next index. */
function nounList(chunks: Chunk[], start: number): { items: NounPhrase[]; next: number } {
  const items: NounPhrase[] = [];
  let k = start;
  while (k < chunks.length) {
    const c = chunks[k];
    if (c?.type !== "np") break;
    items.push(c);
    k++;
    const sep = chunks[k];
    const after = chunks[k + 1];
    const after2 = chunks[k + 2];
    if (sep?.type === "conj" && /^(and|or)$/i.test(sep.token.text) && after?.type === "np" && after2?.type !== "vg") k++;
    else if (sep?.type === "comma" && after?.type === "np" && after2?.type !== "vg") k++;
    else if (sep?.type === "comma" && after?.type === "conj" && chunks[k + 2]?.type === "np" && chunks[k + 3]?.type !== "vg") k += 2;
    else break;
  }
  return { items, next: k };
}

/** Subjects of the verb group at `v`: the noun phrases before it, or the antecedent of a relative pronoun. */
function subjectsOf(chunks: Chunk[], v: number, previous: NounPhrase[] | null): NounPhrase[] {
  let k = v - 1;
  const before = chunks[k];
  if (before?.type === "rel") {
    const antecedent = chunks[k - 1];
    if (antecedent?.type !== "np") return [];
    // "Melanie is a painter who loves camping": the painter is Melanie
    const link = chunks[k - 2];
    if (link?.type === "vg" && isCopula(link) && previous) return previous;
    return [antecedent];
  }
  if (before?.type === "np") {
    // walk back over a coordination: "Tom and Anna live in Paris"
    const items: NounPhrase[] = [before];
    k--;
    while (k >= 1) {
      const sep = chunks[k];
      const np = chunks[k - 1];
      if (
        (sep?.type === "conj" || sep?.type === "comma") &&
        np?.type === "np" &&
        chunks[k - 2]?.type !== "prep" &&
        chunks[k - 2]?.type !== "vg"
      ) {
        items.unshift(np);
        k -= 2;
      } else break;
    }
    // "... in Berlin and she joined": the noun before a preposition is no subject
    return chunks[k]?.type === "prep" || chunks[k]?.type === "vg" ? [before] : items;
  }
  // "moved to Paris and joined Acme": a second predicate shares the subject
  if ((before?.type === "conj" || before?.type === "comma") && previous) return previous;
  return [];
}

const isCopula = (vg: VerbGroup) => vg.be && vg.main === null;

const VALIDITY_WORDS = /^(until|till|til|through|thru|from|since|by|every|each)$/i;

/**
 * A time as the object of a schedule ("is on Friday", "opens at midnight", "kept for thirty days"),
 * when the clause has no other object; "until"/"since" dates are validity, never objects.
 */
function dateObject(chunks: Chunk[], k: number): { prep: string | null; object: NounPhrase } | null {
  let prep: string | null = null;
  let c = chunks[k];
  if (c?.type === "prep") {
    if (VALIDITY_WORDS.test(c.token.lower)) return null;
    prep = c.token.lower;
    c = chunks[k + 1];
  }
  if (c?.type !== "date") return null;
  let words = c.tokens;
  if (words[0] && VALIDITY_WORDS.test(words[0].lower)) return null;
  if (!prep && words[0] && /^(on|at|in|for|during)$/i.test(words[0].lower)) {
    prep = words[0].lower;
    words = words.slice(1);
  }
  if (!words.length) return null;
  return { prep, object: { ...adjectivePhrase(words.map((w) => w.text).join(" ")), tokens: words } };
}

/** Relation words for a possessive subject ("favourite band" of Liam). */
const possessedRelation = (np: NounPhrase) => valueRelation(np.text) ?? slug(np.text);

/** The clauses of one sentence's chunks; `tokens` (the sentence's) give the words the chunks leave out (schedules). */
export function clauses(chunks: Chunk[], tokens: readonly Token[]): Clause[] {
  const out: Clause[] = appositiveRoles(chunks);
  let previous: NounPhrase[] | null = null;
  for (let v = 0; v < chunks.length; v++) {
    const vg = chunks[v];
    if (vg?.type !== "vg") continue;
    const subjects = subjectsOf(chunks, v, previous);
    if (!subjects.length) continue;
    previous = subjects;
    const emit = (relation: string, objects: NounPhrase[], extra?: Partial<Clause>) => {
      if (!relation) return;
      for (const s of subjects)
        for (const o of objects) out.push({ subject: s, relation, object: o, negated: vg.negated, verb: vg, ...extra });
    };
    let k = v + 1;
    const next = chunks[k];
    const sched = scheduleOf(vg, tokens);
    if (sched) {
      emit("schedule", [sched.object], { schedule: true });
      // "Backups run every night at 2 am" says nothing else; "Leon goes to the gym every weekday at 7 am" does
      if (sched.whole) continue;
    }
    const held = roleClauses(chunks, v, subjects) ?? valueClauses(chunks, v, subjects) ?? tenureEnded(chunks, v);
    if (held) {
      out.push(...held.clauses);
      // a role noun the tagger read as a verb ("tech lead") is no verb of its own
      v = held.last;
      continue;
    }
    if (isCopula(vg)) {
      // "Iris and Ivy are sisters": each is the other's sibling
      const kin = next?.type === "np" && subjects.length === 2 && !next.possessor ? MUTUAL_NOUN[next.text.toLowerCase()] : undefined;
      if (kin) {
        out.push({ subject: subjects[0]!, relation: kin, object: subjects[1]!, negated: vg.negated, verb: vg, reciprocal: true });
        continue;
      }
      const relational = next?.type === "np" ? relationalNoun(chunks, k) : null;
      if (relational) {
        emit(relational, nounList(chunks, k + 2).items);
        continue;
      }
      if (next?.type === "np") {
        out.push(...copulaNouns(nounList(chunks, k).items, subjects, vg));
        continue;
      }
      if (next?.type === "adj") {
        const prep = chunks[k + 1];
        const mutual = mutualState(subjects, next.text, vg);
        if (prep?.type === "prep" && chunks[k + 2]?.type === "np") {
          emit(slug(next.text, prep.token.lower), nounList(chunks, k + 2).items);
        } else if (mutual) out.push(mutual);
        else emit("is", [adjectivePhrase(next.text)]);
        continue;
      }
      if (next?.type === "prep" && chunks[k + 1]?.type === "np") {
        emit(slug("is", next.token.lower), nounList(chunks, k + 1).items);
        continue;
      }
      const when = dateObject(chunks, k);
      if (when) emit(slug("is", when.prep), [when.object]);
      continue;
    }
    const main = vg.main;
    if (!main) continue;
    if (vg.passive) {
      out.push(...passiveClauses(chunks, v, subjects));
      continue;
    }
    const verb = slug(...vg.chain.map((c) => `${c}_to`), main.lemma, vg.particle);
    // "Lin and Sam divorced (in 2021)", "Luis and Maria got married": each is the other's object
    if (subjects.length === 2 && next?.type !== "np" && !(next?.type === "prep" && chunks[k + 1]?.type === "np")) {
      const how = next?.type === "adj" ? slug(verb, next.text) : verb;
      out.push({ subject: subjects[0]!, relation: how, object: subjects[1]!, negated: vg.negated, verb: vg, reciprocal: true });
      continue;
    }
    if (next?.type === "np") {
      const { items, next: after } = nounList(chunks, k);
      // "quit his job at IBM", "left her position with Acme": the employer is the object
      const at = chunks[after];
      const employer = chunks[after + 1];
      if (
        items.length === 1 &&
        JOB.test(items[0]!.text) &&
        at?.type === "prep" &&
        /^(at|with|in)$/.test(at.token.lower) &&
        employer?.type === "np"
      ) {
        emit(slug(verb, "job_at"), [employer]);
        continue;
      }
      // "Noa handed the release checklist to Felipe": the receiver takes it over (pipeline/transfers.ts)
      if (HAND_OVER.test(verb) && at?.type === "prep" && at.token.lower === "to" && employer?.type === "np") {
        for (const o of items) out.push({ subject: employer, relation: "take_over", object: o, negated: vg.negated, verb: vg });
        k = after + 1;
        continue;
      }
      emit(verb, items);
      // "Omar heads the data team at Lumen": who leads a team at an organisation works there
      if (LEADS_AT.test(main.lemma) && at?.type === "prep" && at.token.lower === "at" && employer?.type === "np" && employer.proper)
        emit("works_at", [employer]);
      k = after;
      continue;
    }
    if (next?.type === "prep" && chunks[k + 1]?.type === "np") {
      emit(slug(verb, next.token.lower), nounList(chunks, k + 1).items);
    } else if (next?.type === "adj") {
      // "became famous", "looks tired"
      emit(verb, [adjectivePhrase(next.text)]);
    } else {
      const when = dateObject(chunks, k);
      if (when?.prep) emit(slug(verb, when.prep), [when.object]);
    }
  }
  return out.map(ownedThing);
}

/** The clauses of a passive verb group at `v`: "is maintained by Team Orca", "was hired as X at Y", "is closed". */
function passiveClauses(chunks: Chunk[], v: number, subjects: NounPhrase[]): Clause[] {
  const vg = chunks[v] as VerbGroup;
  const main = vg.main!;
  const k = v + 1;
  const next = chunks[k];
  const out: Clause[] = [];
  const emit = (relation: string, objects: NounPhrase[]) => {
    for (const s of subjects) for (const o of objects) out.push({ subject: s, relation, object: o, negated: vg.negated, verb: vg });
  };
  if (next?.type === "prep" && next.token.lower === "by" && chunks[k + 1]?.type === "np" && !vg.particle) {
    // "The billing API is maintained by Team Orca": Team Orca maintains it, one relation whichever voice says it
    const agents = nounList(chunks, k + 1).items.filter((a) => !a.pronoun || a.pronoun !== "it");
    for (const a of agents)
      for (const s of subjects) out.push({ subject: a, relation: slug(main.lemma), object: s, negated: vg.negated, verb: vg });
  } else if (next?.type === "prep" && chunks[k + 1]?.type === "np") {
    emit(slug(main.lower, vg.particle, next.token.lower), nounList(chunks, k + 1).items);
    // "Elena was hired as a data engineer at Klarna": hired by where the post is
    const at = chunks[k + 2];
    const employer = chunks[k + 3];
    if (
      /^(hire|employ|recruit|take)$/.test(main.lemma) &&
      next.token.lower === "as" &&
      at?.type === "prep" &&
      /^(at|by)$/.test(at.token.lower) &&
      employer?.type === "np"
    )
      emit("hired_by", [employer]);
  } else if (next?.type === "np") {
    // "was named employee of the month", "is called Biscuit"
    emit(slug(main.lower), nounList(chunks, k).items);
  } else {
    const when = dateObject(chunks, k);
    // "logs are kept for thirty days"; with no object at all, the participle is a state: "the office is closed"
    const mutual = mutualState(subjects, main.lower, vg);
    if (when?.prep) emit(slug(main.lower, vg.particle, when.prep), [when.object]);
    else if (mutual) out.push(mutual);
    else if (!vg.particle) emit("is", [adjectivePhrase(main.lower)]);
  }
  return out;
}

/** "The billing service belongs to the payments team": a thing belongs to its owner (a person belongs to a club). */
function ownedThing(c: Clause): Clause {
  if (c.relation !== "belong_to" || c.subject.proper || c.subject.pronoun || c.object.pronoun) return c;
  return { ...c, subject: c.object, relation: "own", object: c.subject };
}

/** "X is a painter", "Liam's favourite band is Radiohead", "Bluebird's CTO is Sofia": a copula before noun phrases. */
function copulaNouns(items: NounPhrase[], subjects: NounPhrase[], vg: VerbGroup): Clause[] {
  const s = subjects[0]!;
  const clause = (subject: NounPhrase, relation: string, object: NounPhrase): Clause => ({
    subject,
    relation,
    object,
    negated: vg.negated,
    verb: vg,
  });
  // "Liam's favourite band is Radiohead": the possessor is the subject, the possessed noun the relation
  const role = subjects.length === 1 && s.possessor && !s.possessor.pronoun ? roleOf({ ...s, possessor: null }) : null;
  // "Bluebird's CTO is Sofia": Sofia is the CTO of Bluebird, as "Sofia is Bluebird's CTO" says
  if (role && !role.groupFirst) return items.map((o) => clause(o, role.relation, s.possessor!));
  // "Their main contact is Art Vandelay": the possessor, a pronoun too, is the subject (its referent kept)
  if (subjects.length === 1 && s.possessor) return items.map((o) => clause(s.possessor!, possessedRelation(s), o));
  const relation = items.some((o) => o.det === "a" || o.det === "an" || !o.proper) ? "is_a" : "is";
  return subjects.flatMap((subject) => items.map((o) => clause(subject, relation, o)));
}

const JOB = /^(job|position|post|role|gig|internship)$/i;
/** Plural nouns two subjects are to each other, of symmetric relations: "Iris and Ivy are sisters" -> sibling_of. */
const MUTUAL_NOUN: Record<string, string> = {
  sisters: "sibling_of",
  brothers: "sibling_of",
  siblings: "sibling_of",
  twins: "sibling_of",
  cousins: "relative_of",
  friends: "friend_of",
  "best friends": "friend_of",
  partners: "partner_of",
};

/** States two subjects are in with each other: "Sara and Tim are married" -> married_to. */
const RECIPROCAL_STATE: Record<string, string> = {
  married: "married_to",
  engaged: "engaged_to",
  divorced: "divorced_from",
  separated: "separate_from",
};

/** "Sara and Tim have been married since 2015": each of two subjects is the other's spouse. */
function mutualState(subjects: NounPhrase[], word: string, vg: VerbGroup): Clause | null {
  const relation = subjects.length === 2 ? RECIPROCAL_STATE[word.toLowerCase()] : undefined;
  return relation ? { subject: subjects[0]!, relation, object: subjects[1]!, negated: vg.negated, verb: vg, reciprocal: true } : null;
}

/** Nouns that relate their subject to the noun phrase after their preposition: "a member of", "friends with". */
const RELATIONAL: Record<string, [prep: RegExp, relation: string]> = {
  member: [/^of$/, "member_of"],
  members: [/^of$/, "member_of"],
  part: [/^of$/, "member_of"],
  friend: [/^(of|with)$/, "friend_of"],
  friends: [/^with$/, "friend_of"],
  customer: [/^of$/, "customer_of"],
  customers: [/^of$/, "customer_of"],
  client: [/^of$/, "customer_of"],
  clients: [/^of$/, "customer_of"],
  fan: [/^of$/, "likes"],
  fans: [/^of$/, "likes"],
};

/** "Leon is a member of the Labour Party", "Ahmed is friends with Samir": the relation a copula's noun names. */
function relationalNoun(chunks: Chunk[], k: number): string | null {
  const np = chunks[k] as NounPhrase;
  const prep = chunks[k + 1];
  if (np.possessor || np.tokens.length > 2 || prep?.type !== "prep" || chunks[k + 2]?.type !== "np") return null;
  const entry = RELATIONAL[np.text.toLowerCase()];
  return entry?.[0].test(prep.token.lower) ? entry[1] : null;
}
/** Verbs that give what the subject holds to the person after "to": the mirror of "take over". */
const HAND_OVER = /^(hand|hand_over|hand_off|pass_on|pass_over|turn_over|transfer)$/;
const LEADS_AT = /^(head|lead|direct|manage|run|chair|captain|coach|supervise|oversee)$/;
/** The schedule a verb group states (schedule.ts), and whether it is all the clause says (it starts right after the verb). */
function scheduleOf(vg: VerbGroup, tokens: readonly Token[]): { object: NounPhrase; whole: boolean } | null {
  // after the verb itself: "runs on the 25th" keeps its "on"
  const found = schedulePhrase(tokens, (vg.main ?? vg.tokens.at(-1)!).end, vg.main?.lemma ?? null);
  return found ? { object: adjectivePhrase(found.phrase), whole: found.rightAfterVerb } : null;
}

/** A role noun the tagger read as a verb after its noun phrase: "the mobile team's tech lead", "the tech lead of". */
const ROLE_VERB_NOUNS = /^(lead|head|chair|coach|contact|manage|address|email|phone|number)$/;

/** The noun phrase at `k`, with a role noun the tagger split off as a verb put back; and the index after it. */
function roleNoun(chunks: Chunk[], k: number): { np: NounPhrase; next: number } | null {
  const np = chunks[k];
  if (np?.type !== "np") return null;
  const split = chunks[k + 1];
  if (split?.type === "vg" && split.tokens.length === 1 && ROLE_VERB_NOUNS.test(split.tokens[0]!.lower) && chunks[k + 2]?.type !== "np")
    return { np: { ...np, text: `${np.text} ${split.tokens[0]!.text}`, tokens: [...np.tokens, split.tokens[0]!] }, next: k + 2 };
  return { np, next: k + 1 };
}

/** The group after a role: "of Hooli", "at Hooli", "for the checkout flow". */
function groupAfter(chunks: Chunk[], k: number): NounPhrase | null {
  const prep = chunks[k];
  const group = chunks[k + 1];
  if (prep?.type !== "prep" || !/^(of|at|for)$/.test(prep.token.lower) || group?.type !== "np" || group.pronoun) return null;
  return group;
}

/**
 * Where a role is held, from the chunk after the role: "of Hooli" (the group), or "of marketing at Wonka" (a lead role
 * of a department, `leads` marketing, and the organisation the holder works at), or "of Engineering at Rappi" (an
 * officer's title at the organisation: `vp_of_engineering_at` Rappi). `last` is the last chunk read.
 */
function placeRole(
  chunks: Chunk[],
  k: number,
  role: Role,
): { role: Role; group: NounPhrase; employer: NounPhrase | null; last: number } | null {
  const group = groupAfter(chunks, k);
  if (!group) return null;
  const at = chunks[k + 2];
  const org = chunks[k + 3];
  const of = (chunks[k] as { token: { lower: string } }).token.lower === "of";
  if (!of || at?.type !== "prep" || at.token.lower !== "at" || org?.type !== "np" || org.pronoun || role.groupFirst)
    return { role, group, employer: null, last: k + 1 };
  if (/^(leads|manages|owns|maintains)$/.test(role.relation)) return { role, group, employer: org, last: k + 3 };
  const title = role.relation.replace(/_(of|at|for)$/, "");
  const dept = group.text
    .toLowerCase()
    .replace(/^the\s+/, "")
    .replace(/[^a-z0-9]+/g, "_");
  return { role: { relation: `${title}_of_${dept}_at`, groupFirst: false }, group: org, employer: org, last: k + 3 };
}

/** The verb an appositive leaves out: "Kemi, the CISO of Brightwave, asked" says Kemi is the CISO, now. */
const UNSAID_COPULA: VerbGroup = {
  type: "vg",
  tokens: [],
  main: null,
  chain: [],
  be: true,
  negated: false,
  passive: false,
  particle: null,
};

/** Roles in apposition to a name: "Kemi, the CISO of Brightwave, asked ...", "... to Ravi, our head of sales at Acme." */
function appositiveRoles(chunks: Chunk[]): Clause[] {
  const out: Clause[] = [];
  for (let i = 0; i + 3 < chunks.length; i++) {
    const name = chunks[i];
    const role = chunks[i + 2];
    if (name?.type !== "np" || !name.proper || name.pronoun || chunks[i + 1]?.type !== "comma" || role?.type !== "np") continue;
    const r = roleOf(role);
    const placed = r ? placeRole(chunks, i + 3, r) : null;
    const end = placed ? chunks[placed.last + 1] : null;
    if (!placed || !(end?.type === "comma" || end?.type === "stop" || !end)) continue;
    const said = (relation: string, object: NounPhrase, role?: boolean) => {
      const [s, o] = placed.role.groupFirst && role ? [object, name] : [name, object];
      out.push({ subject: s, relation, object: o, negated: false, verb: UNSAID_COPULA, ...(role ? { role } : {}) });
    };
    said(placed.role.relation, placed.group, true);
    if (placed.employer) said("works_at", placed.employer);
  }
  return out;
}

/** Verbs that give the role named after "as" to their object: "Lumen Labs appointed Omar Said as CEO". */
const APPOINT = /^(appoint|name|hire|elect|promote|make|choose|pick|select|nominate|confirm)$/;
/** Verbs whose subject takes the role named after "as": "Gavin replaced Jack as CEO", "Leo took over as PM". */
const SUCCEED = /^(replace|succeed|take|join|start|stay|remain|serve|return|step|come)$/;
/** Of those, the ones that say when the role began: "Gavin replaced Jack as CEO" (not "Diego serves as VP"). */
const STARTS_ROLE = /^(replace|succeed|take|join|start|return|step|come)$/;

/**
 * Clauses that name a role a group has one holder of, whatever the wording (roles.ts): "X is (now) the (new) CEO
 * of Y", "X is Y's tech lead", "the CEO of Y is X", "Y has a new coach, X", "X replaced Z as CEO of Y", "Y appointed
 * X as CEO". Null when the verb group at `v` names no role.
 */
function roleClauses(chunks: Chunk[], v: number, subjects: NounPhrase[]): { clauses: Clause[]; last: number } | null {
  const vg = chunks[v] as VerbGroup;
  const out: Clause[] = [];
  let starts = false;
  // "stepped down as", "resigned as", "retired as": the role ends
  const ends =
    (vg.main?.lemma === "step" && /^(down|aside|back)$/.test(vg.particle ?? "")) || /^(resign|retire|quit)$/.test(vg.main?.lemma ?? "");
  let last = v;
  const hold = (holder: NounPhrase, role: Role, group: NounPhrase, employer: NounPhrase | null = null) => {
    if (holder.pronoun === "it") return;
    const [subject, object] = role.groupFirst ? [group, holder] : [holder, group];
    out.push({
      subject,
      relation: role.relation,
      object,
      negated: vg.negated,
      verb: vg,
      role: true,
      ...(starts ? { starts } : {}),
      ...(ends ? { ends } : {}),
    });
    // "the head of marketing at Wonka": the holder works there too
    if (employer)
      out.push({ subject: holder, relation: "works_at", object: employer, negated: vg.negated, verb: vg, ...(starts ? { starts } : {}) });
  };
  /** The role named at `k`'s group, and, after "of DEPT at ORG", the organisation; then `hold` each subject. */
  const holdPlaced = (holders: NounPhrase[], role: Role, k: number) => {
    const placed = placeRole(chunks, k, role);
    if (placed) for (const h of holders) hold(h, placed.role, placed.group, placed.employer);
    return placed;
  };
  const done = () => (out.length ? { clauses: out, last } : null);
  const lemma = vg.main?.lemma ?? "";
  const after = roleNoun(chunks, v + 1);
  if (after && (isCopula(vg) || /^(become|remain|stay|name|appoint|elect|promote|make|hire)$/.test(lemma))) {
    const { np } = after;
    // "Sofia became CTO of Bluebird in 2020": the role began then
    starts = !isCopula(vg) && /^(become|name|appoint|elect|promote|make|hire)$/.test(lemma);
    // "X is Y's tech lead", "He is its CEO"
    const possessed = np.possessor ? roleOf({ ...np, possessor: null }) : null;
    if (possessed) for (const s of subjects) hold(s, possessed, np.possessor!);
    // "X is the new manager of Y", "Priya is the head of marketing at Wonka"
    const role = np.possessor ? null : roleOf(np);
    const placed = role ? holdPlaced(subjects, role, after.next) : null;
    last = placed ? placed.last : after.next - 1;
    if (out.length) return done();
  }
  // "The CEO of Y is X", "Our main contact at Y is X", "The head of marketing at Wonka is Priya": the role before
  // the copula, the holder after it
  if (isCopula(vg) && after && subjects.length === 1) {
    for (const back of [3, 5]) {
      const before = chunks[v - back];
      if (before?.type !== "np" || out.length) continue;
      const role = roleOf({ ...before, possessor: before.possessor?.pronoun ? null : before.possessor });
      const placed = role ? placeRole(chunks, v - back + 1, role) : null;
      if (placed && placed.last === v - 1) hold(after.np, placed.role, placed.group, placed.employer);
    }
    last = after.next - 1;
    if (out.length) return done();
  }
  // "Y has a new coach, X", "Y has a new account manager: X"
  const next = chunks[v + 2];
  const holder = chunks[v + 3];
  if (
    lemma === "have" &&
    after &&
    (next?.type === "comma" || (next?.type === "stop" && next.token.text === ":")) &&
    holder?.type === "np"
  ) {
    const role = roleOf(after.np, { indefinite: true });
    if (role && (holder.proper || holder.tokens.some((t) => t.name))) for (const s of subjects) hold(holder, role, s);
    last = v + 3;
    if (out.length) return done();
  }
  // "X replaced Z as CEO of Y", "Y appointed X as chief executive", "Leo took over as product manager for Y"
  let k = v + 1;
  const object = chunks[k]?.type === "np" ? (chunks[k] as NounPhrase) : null;
  if (object) k++;
  const as = chunks[k];
  const hasAs = as?.type === "prep" && as.token.lower === "as";
  // "named Omar CEO", and "as" when the tagger dropped it as an adverb
  if ((hasAs && (APPOINT.test(lemma) || SUCCEED.test(lemma) || ends)) || (!hasAs && object && as?.type === "np" && APPOINT.test(lemma))) {
    const named = roleNoun(chunks, hasAs ? k + 1 : k);
    const role = named ? roleOf(named.np) : null;
    if (role && named) {
      starts = !ends && (APPOINT.test(lemma) || STARTS_ROLE.test(lemma));
      const holders = APPOINT.test(lemma) && object ? [object] : subjects;
      const placed = holdPlaced(holders, role, named.next);
      // "Lumen Labs appointed Omar as chief executive": the organisation that appoints
      if (!placed && APPOINT.test(lemma) && object) for (const s of subjects) hold(object, role, s);
      // "Priya joined Umbrella Corp as CFO": the role is held at what was joined, which is joined too
      else if (!placed && lemma === "join" && object && !object.pronoun)
        for (const s of subjects) {
          hold(s, role, object);
          out.push({ subject: s, relation: "join", object, negated: vg.negated, verb: vg });
        }
      last = placed ? placed.last : named.next - 1;
    }
    if (out.length) return done();
  }
  return null;
}

const TENURE = /^(time|tenure|stint|job|career|employment|contract|years)$/i;

/** "Gwen's time at the Guardian ended in 2021": the job ended then (`works_at`, ending). */
function tenureEnded(chunks: Chunk[], v: number): { clauses: Clause[]; last: number } | null {
  const vg = chunks[v] as VerbGroup;
  const org = chunks[v - 1];
  const at = chunks[v - 2];
  const tenure = chunks[v - 3];
  if (!/^(end|finish|conclude|close)$/.test(vg.main?.lemma ?? "") || vg.negated) return null;
  if (org?.type !== "np" || at?.type !== "prep" || !/^(at|with)$/.test(at.token.lower) || tenure?.type !== "np") return null;
  if (!tenure.possessor || !TENURE.test(tenure.text)) return null;
  return { clauses: [{ subject: tenure.possessor, relation: "works_at", object: org, negated: false, verb: vg, ends: true }], last: v };
}

/** Verbs that set a value anew: "changed its support email to", "raised the price of the Pro plan to". */
const SET_VALUE = /^(change|move|update|switch|set|raise|lower|reduce|increase|cut|bump|upgrade|downgrade|drop)$/;

/**
 * Clauses that give a subject a new value of something it has one of (roles.ts valueRelation): "Initech changed its
 * support email to X", "We raised the price of the Pro plan to $59", "Hooli reduced its seats from 40 to 25",
 * "Ken has a new number: X", "Tomasz now uses X as his work email", "The SDK is at version 2.4.0". Null when the
 * verb group at `v` sets no value.
 */
function valueClauses(chunks: Chunk[], v: number, subjects: NounPhrase[]): { clauses: Clause[]; last: number } | null {
  const vg = chunks[v] as VerbGroup;
  const lemma = vg.main?.lemma ?? "";
  // "its billing address": a value noun the tagger read as a verb is put back
  const merged = roleNoun(chunks, v + 1);
  const np = merged?.np ?? null;
  const shift = merged ? merged.next - (v + 2) : 0;
  const clause = (subject: NounPhrase, relation: string, object: NounPhrase, starts: boolean): Clause => ({
    subject,
    relation,
    object,
    negated: vg.negated,
    verb: vg,
    ...(starts ? { starts } : {}),
  });
  const owners = (value: NounPhrase) => (value.possessor && !value.possessor.pronoun ? [value.possessor] : subjects);
  if (np && SET_VALUE.test(lemma)) {
    const relation = valueRelation(np.text);
    let k = v + 2 + shift;
    // "the price of the Pro plan": the value's owner after "of"
    let owner = owners(np);
    if (chunks[k]?.type === "prep" && (chunks[k] as { token: { lower: string } }).token.lower === "of" && chunks[k + 1]?.type === "np") {
      owner = [chunks[k + 1] as NounPhrase];
      k += 2;
    }
    // "from 40 to 25": the old value is the history's, the new one the fact
    if (chunks[k]?.type === "prep" && (chunks[k] as { token: { lower: string } }).token.lower === "from") k += 2;
    const to = chunks[k];
    const value = chunks[k + 1];
    if (relation && to?.type === "prep" && to.token.lower === "to" && value?.type === "np")
      return { clauses: owner.map((o) => clause(o, relation, value, true)), last: k + 1 };
  }
  const moved = movedValue(chunks, v, subjects, np);
  if (moved) return moved;
  // "Ken has a new number: X"
  const sep = chunks[v + 2];
  const value = chunks[v + 3];
  if (
    lemma === "have" &&
    np?.det === "a" &&
    /^new\s/i.test(np.text) &&
    (sep?.type === "comma" || (sep?.type === "stop" && sep.token.text === ":"))
  ) {
    const relation = valueRelation(np.text);
    if (relation && value?.type === "np") return { clauses: subjects.map((s) => clause(s, relation, value, false)), last: v + 3 };
  }
  // "Tomasz now uses X as his work email"
  const as = chunks[v + 2];
  const named = chunks[v + 3];
  if (lemma === "use" && np && as?.type === "prep" && as.token.lower === "as" && named?.type === "np") {
    const relation = valueRelation(named.text);
    if (relation) return { clauses: subjects.map((s) => clause(s, relation, np, false)), last: v + 3 };
  }
  // "The SDK is at version 2.4.0", "The Android app is on version 5.4"
  const at = chunks[v + 1];
  const version = chunks[v + 2];
  if (
    isCopula(vg) &&
    at?.type === "prep" &&
    /^(at|on)$/.test(at.token.lower) &&
    version?.type === "np" &&
    /^version\s+\S*\d/i.test(version.text)
  )
    return { clauses: subjects.map((s) => clause(s, "version", version, false)), last: v + 2 };
  return null;
}

const prepAt = (chunks: Chunk[], k: number, word: string) => {
  const c = chunks[k];
  return c?.type === "prep" && c.token.lower === word;
};

/**
 * A change of value told with its old and new values or with the thing changed as the object (values.ts): "The build
 * image has moved from Node 18 to Node 20" (the subject's new value), "We upgraded the API gateway to Envoy 1.30" (the
 * object's). The relation is the verb's with "to" ("move_to"), the clause a start.
 */
function movedValue(chunks: Chunk[], v: number, subjects: NounPhrase[], np: NounPhrase | null): { clauses: Clause[]; last: number } | null {
  const vg = chunks[v] as VerbGroup;
  const lemma = vg.main?.lemma ?? "";
  if (!CHANGE_VERB.test(lemma) || vg.passive) return null;
  const clause = (subject: NounPhrase, object: NounPhrase): Clause => ({
    subject,
    relation: slug(lemma, vg.particle, "to"),
    object,
    negated: vg.negated,
    verb: vg,
    starts: true,
  });
  const value = chunks[v + 4];
  // "migrated from Dropbox to our storage product" is no value: the plain clauses read it
  if (
    prepAt(chunks, v + 1, "from") &&
    chunks[v + 2]?.type === "np" &&
    prepAt(chunks, v + 3, "to") &&
    value?.type === "np" &&
    namesValue(value)
  )
    return { clauses: subjects.map((s) => clause(s, value)), last: v + 4 };
  const next = chunks[v + 3];
  if (np && !np.pronoun && chunks[v + 1] === np && prepAt(chunks, v + 2, "to") && next?.type === "np" && namesValue(next))
    return { clauses: [clause(np, next)], last: v + 3 };
  return null;
}
