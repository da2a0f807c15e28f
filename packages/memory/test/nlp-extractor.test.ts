// The default offline extractor: every declarative form yields its fact, dates are read by role,
// first person goes to the speaker, and common-noun phrases become entities.
import { describe, expect, it } from "vitest";
import { nlpExtractor } from "../src/extractors/nlp-extractor.js";

const REF = Date.UTC(2023, 4, 8, 12);
const x = nlpExtractor();

async function run(content: string, metadata: Record<string, unknown> = {}) {
  const input = { content, metadata, occurredAt: REF };
  const entities = await x.extractEntities(input);
  const facts = await x.extractFacts({ ...input, entities });
  return { entities, facts, triples: facts.map((f) => [f.source, f.relation, f.target]) };
}

describe("nlp extractor", () => {
  it("reads passive, copula, possessive, relative and coordinated clauses", async () => {
    // a passive with its agent reads in the active voice: one relation whichever voice states it
    expect((await run("The billing service is owned by the payments team.")).triples).toEqual([
      ["payments team", "owns", "billing service"],
    ]);
    expect((await run("Tom is allergic to peanuts.")).triples).toEqual([["Tom", "allergic_to", "peanuts"]]);
    expect((await run("Liam's favourite band is Radiohead.")).triples).toEqual([["Liam", "favourite_band", "Radiohead"]]);
    expect((await run("Melanie is a painter who loves camping with her kids.")).triples).toEqual([
      ["Melanie", "is_a", "painter"],
      ["Melanie", "likes", "camping"],
    ]);
    expect((await run("Yuki speaks Japanese and Korean.")).triples).toEqual([
      ["Yuki", "speaks", "Japanese"],
      ["Yuki", "speaks", "Korean"],
    ]);
    // a recurring time is also the subject's schedule
    expect((await run("Deploys go out on Tuesdays.")).triples).toEqual([
      ["Deploys", "schedule", "Tuesdays"],
      ["Deploys", "go_out_on", "Tuesdays"],
    ]);
  });

  it("makes entities of common-noun phrases", async () => {
    const { entities } = await run("The billing service is owned by the payments team.");
    expect(entities.map((e) => e.name)).toEqual(expect.arrayContaining(["billing service", "payments team"]));
  });

  it("attributes the first person to the speaker and names what a dog is called", async () => {
    const { facts } = await run("I adopted a dog named Biscuit last March.", { speaker: "Jordan" });
    expect(facts[0]).toMatchObject({ source: "Jordan", relation: "owns", target: "Biscuit", validFrom: "2023-03-01" });
    expect(facts[0]!.fact).toBe("Jordan adopted a dog named Biscuit last March.");
    expect(facts[1]).toMatchObject({ source: "Biscuit", relation: "is_a", target: "dog" });
    const prefixed = await run("Caroline: I'm researching adoption agencies.");
    expect(prefixed.triples).toEqual([["Caroline", "research", "adoption agencies"]]);
  });

  it("reads until/through/till as the end of validity and from/since as the start", async () => {
    const until = await run("Frank works at Umbrella until 2030.");
    expect(until.facts[0]).toMatchObject({ relation: "works_at", validFrom: null, validUntil: "2030-01-01" });
    const range = await run("Ken works at Cyberdyne from 2020 until 2030.");
    expect(range.facts[0]).toMatchObject({ validFrom: "2020-01-01", validUntil: "2030-01-01" });
    const through = await run("Anna leads the design team through June 2024.");
    expect(through.facts[0]).toMatchObject({ source: "Anna", validUntil: "2024-06-01" });
    const since = await run("Tariq has been running the Berlin office since last March.");
    expect(since.facts[0]).toMatchObject({ validFrom: "2023-03-01", validUntil: null });
    const relative = await run("Maria visited Rome yesterday.");
    expect(relative.facts[0]).toMatchObject({ relation: "visited", validFrom: "2023-05-07" });
  });

  it("folds paraphrases to one single-valued relation", async () => {
    expect((await run("Lara moved to Lisbon.")).triples).toEqual([["Lara", "lives_in", "Lisbon"]]);
    expect((await run("Wei joined Hooli.")).triples).toEqual([["Wei", "works_at", "Hooli"]]);
    expect((await run("Ahmed is married to Leila.")).triples).toEqual([["Ahmed", "married_to", "Leila"]]);
  });

  it("is deterministic", async () => {
    const text = "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.";
    expect(JSON.stringify(await run(text))).toBe(JSON.stringify(await nlpRun(text)));
  });
  it("points pronouns back by position and number: it to the last sentence's subject, they to its group, he to its name", async () => {
    const triples = async (text: string) => (await run(text)).triples.map((t) => t.join(" "));
    expect(await triples("The search service is owned by the data team. It depends on Elasticsearch.")).toContain(
      "search service depend_on Elasticsearch",
    );
    expect(await triples("The billing service belongs to the payments team. They deploy it twice a week.")).toContain(
      "payments team deploy billing service",
    );
    expect(await triples("The Android app crashed for Initech users yesterday. It is built with Kotlin.")).toContain(
      "Android app built_with Kotlin",
    );
    expect(await triples("Rahul Gupta leads the infra team. He reports to Meera.")).toContain("Rahul Gupta reports_to Meera");
    expect(await triples("The reporting job used to run at 6 am; it now runs at 7 am.")).toEqual([
      "reporting job schedule 6 am",
      "reporting job schedule 7 am",
    ]);
  });
  it("reads a role held at an organisation whatever the wording, apposition included", async () => {
    const triples = async (text: string) => (await run(text)).triples.map((t) => t.join(" "));
    expect(await triples("The head of marketing at Wonka is Priya.")).toEqual(["Priya leads marketing", "Priya works_at Wonka"]);
    expect(await triples("Diego serves as VP of Engineering at Rappi.")).toEqual([
      "Diego vp_of_engineering_at Rappi",
      "Diego works_at Rappi",
    ]);
    expect(await triples("Kemi, the CISO of Brightwave, asked for our SOC 2 report.")).toContain("Kemi ciso_of Brightwave");
    expect(await triples("Kwame founded Farmlink. He is its CEO.")).toContain("Kwame ceo_of Farmlink");
    expect(await triples("Hyun-woo is the captain of the rugby team.")).toEqual(["Hyun-woo captain_of rugby team"]);
    expect(await triples("Omar heads the data team at Lumen.")).toContain("Omar works_at Lumen");
    // kin are no roles
    expect(await triples("Tom is the brother of Ann.")).not.toContain("Tom brother_of Ann");
  });
  it("reads endings said in other words: stepping down as a role, a time at a job that ended, a person who is somewhere now", async () => {
    const said = async (text: string) => (await run(text)).facts.map((f) => `${f.source} ${f.relation} ${f.target} ${f.aspect}`);
    expect(await said("Lars stepped down as maintainer of the Android SDK in June.")).toEqual(["Lars maintains Android SDK ends"]);
    expect(await said("Rita resigned as CFO of Initech.")).toEqual(["Rita cfo_of Initech ends"]);
    expect(await said("Gwen's time at the Guardian ended in 2021; she joined the BBC in January.")).toEqual([
      "Gwen works_at Guardian ends",
      "Gwen works_at BBC starts",
    ]);
    expect(await said("Sven lived in Malmö until last October; he is in Gothenburg now.")).toContain("Sven lives_in Gothenburg holds");
    // an organisation "is in" a place: located there
    expect(await said("Vandelay Industries is in Newark.")).toEqual(["Vandelay Industries located_in Newark holds"]);
  });
  it("reads the pair a sentence opened with as the 'they' of the next, and a thing's owner from 'belongs to'", async () => {
    const pair = (await run("Ilse and Marek live in Gdansk. They both teach at the Maritime Academy.")).triples;
    expect(pair).toContainEqual(["Ilse", "teach_at", "Maritime Academy"]);
    expect(pair).toContainEqual(["Marek", "teach_at", "Maritime Academy"]);
    expect((await run("The invoicing job belongs to the finance team.")).triples).toEqual([["finance team", "owns", "invoicing job"]]);
    expect((await run("Olga belongs to the choir.")).triples).toEqual([["Olga", "member_of", "choir"]]);
  });

  it("reads negated membership, custom and ownership: do-support, group nouns after 'in', 'a customer of'", async () => {
    const assert = (r: Awaited<ReturnType<typeof run>>) => r.facts.map((f) => [f.source, f.relation, f.target, f.polarity]);
    // the word after "doesn't" is a bare verb, though the tagger reads "own" as an adjective
    expect(assert(await run("Priya doesn't own the cabin anymore."))).toEqual([["Priya", "owns", "cabin", "negative"]]);
    expect(assert(await run("Hugo didn't really own that boat."))).toEqual([["Hugo", "owns", "boat", "negative"]]);
    // being in a group is membership; being in a city is still a home
    expect(assert(await run("Leila is in the chess club."))).toEqual([["Leila", "member_of", "chess club", "positive"]]);
    expect(assert(await run("Leila is no longer in the rowing team."))).toEqual([["Leila", "member_of", "rowing team", "negative"]]);
    expect(assert(await run("Leila is in Lisbon."))).toEqual([["Leila", "lives_in", "Lisbon", "positive"]]);
    expect(assert(await run("Stark Industries is a client of Wayne Enterprises."))).toEqual([
      ["Stark Industries", "customer_of", "Wayne Enterprises", "positive"],
    ]);
  });

  it("repairs tags inside names and phrases: an apostrophe of a name, a capitalised particle, a noun read as a verb", async () => {
    expect((await run("Kofi works at St James' Hospital.")).triples).toEqual([["Kofi", "works_at", "St James' Hospital"]]);
    expect((await run("Wang Na lives in Xi'an.")).triples[0]?.[0]).toBe("Wang Na");
    expect((await run("Tamsin leads the infra team.")).triples).toEqual([["Tamsin", "leads", "infra team"]]);
  });
});

async function nlpRun(content: string) {
  const fresh = nlpExtractor();
  const input = { content, metadata: {}, occurredAt: REF };
  const entities = await fresh.extractEntities(input);
  const facts = await fresh.extractFacts({ ...input, entities });
  return { entities, facts, triples: facts.map((f) => [f.source, f.relation, f.target]) };
}
