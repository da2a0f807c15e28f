// Clause patterns over chunks: subject-verb-object, passive ("X is owned by Y"), copula with a noun
// or an adjective ("Melanie is a painter", "Tom is allergic to peanuts"), possessive copula ("Liam's
// favourite band is Radiohead"), relative clauses ("who loves camping") and coordination on both sides.
import type { Chunk, NounPhrase, VerbGroup } from "./chunks.js";

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
const possessedRelation = (np: NounPhrase) => slug(np.text);

export function clauses(chunks: Chunk[]): Clause[] {
  const out: Clause[] = [];
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
    const sched = scheduleObject(chunks, k);
    if (sched) {
      emit("schedule", [sched], { schedule: true });
      continue;
    }
    const role = roleObject(chunks, k);
    if (role && (isCopula(vg) || /^(become|remain|stay|name|appoint|elect|promote|make|hire)$/.test(vg.main?.lemma ?? ""))) {
      emit(`${role.role}_of`, [role.org]);
      continue;
    }
    if (isCopula(vg)) {
      if (next?.type === "np") {
        const { items } = nounList(chunks, k);
        const s = subjects[0]!;
        // "Liam's favourite band is Radiohead": the possessor is the subject, the possessed noun the relation
        if (subjects.length === 1 && s.possessor && !s.possessor.pronoun?.match(/^(its|their)$/)) {
          for (const o of items)
            out.push({ subject: { ...s.possessor }, relation: possessedRelation(s), object: o, negated: vg.negated, verb: vg });
        } else if (subjects.length === 1 && s.possessor) {
          emit("is", items);
        } else emit(items.some((o) => o.det === "a" || o.det === "an" || !o.proper) ? "is_a" : "is", items);
        continue;
      }
      if (next?.type === "adj") {
        const prep = chunks[k + 1];
        if (prep?.type === "prep" && chunks[k + 2]?.type === "np") {
          emit(slug(next.text, prep.token.lower), nounList(chunks, k + 2).items);
        } else emit("is", [adjectivePhrase(next.text)]);
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
      if (next?.type === "prep" && chunks[k + 1]?.type === "np") {
        emit(slug(main.lower, vg.particle, next.token.lower), nounList(chunks, k + 1).items);
      } else if (next?.type === "np") {
        // "was named employee of the month", "is called Biscuit"
        emit(slug(main.lower), nounList(chunks, k).items);
      } else {
        const when = dateObject(chunks, k);
        // "logs are kept for thirty days"; with no object at all, the participle is a state: "the office is closed"
        if (when?.prep) emit(slug(main.lower, vg.particle, when.prep), [when.object]);
        else if (!vg.particle) emit("is", [adjectivePhrase(main.lower)]);
      }
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
      emit(verb, items);
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
  return out;
}

const JOB = /^(job|position|post|role|gig|internship)$/i;
const RECURRING = /^(every|each|daily|nightly|weekly|monthly|hourly|weekdays|weekends)$/i;

/** "every night at 2 am", "each Monday at 10": a recurring time as the whole object of its verb. */
function scheduleObject(chunks: Chunk[], k: number): NounPhrase | null {
  const first = chunks[k];
  if (first?.type !== "date" || !RECURRING.test(first.tokens[0]!.lower)) return null;
  const words = [...first.tokens];
  let j = k + 1;
  for (;;) {
    const c = chunks[j];
    if (c?.type === "date") words.push(...c.tokens);
    else if (c?.type === "prep" && chunks[j + 1]?.type === "date" && !VALIDITY_WORDS.test(c.token.lower)) words.push(c.token);
    else break;
    j++;
  }
  return { ...adjectivePhrase(words.map((w) => w.text).join(" ")), tokens: words };
}

/** Roles an organisation has one holder of, as a relation: "the CTO of Bluebird" -> cto_of Bluebird. */
const UNIQUE_ROLE =
  /^(ceo|cto|cfo|coo|cmo|cio|ciso|cpo|president|chair|chairman|chairwoman|chairperson|founder|owner|head|director|manager|lead|principal|captain|mayor|treasurer|secretary|editor|maintainer|dean)$/i;

function roleObject(chunks: Chunk[], k: number): { role: string; org: NounPhrase } | null {
  const np = chunks[k];
  if (np?.type !== "np" || np.pronoun) return null;
  // "Bluebird's CTO"
  const words = np.text.split(/\s+/);
  if (np.possessor && !np.possessor.pronoun && words.length === 1 && UNIQUE_ROLE.test(words[0]!))
    return { role: words[0]!.toLowerCase(), org: np.possessor };
  const prep = chunks[k + 1];
  const org = chunks[k + 2];
  if (prep?.type !== "prep" || !/^(of|at)$/.test(prep.token.lower) || org?.type !== "np" || org.pronoun) return null;
  if (np.det === "a" || np.det === "an" || words.length !== 1 || !UNIQUE_ROLE.test(words[0]!)) return null;
  return { role: words[0]!.toLowerCase(), org };
}
