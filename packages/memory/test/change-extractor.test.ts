// The offline extractor's change model, statement by statement: the relation each clause asserts, its polarity
// and its aspect (holds, starts, ends, past, will_start), and the classes of issue #25 read at extraction level.
import { describe, expect, it } from "vitest";
import { nlpExtractor } from "../src/extractors/nlp-extractor.js";

const REF = Date.UTC(2023, 4, 8, 12);
const x = nlpExtractor();

async function said(content: string, speaker?: string) {
  const input = { content, metadata: speaker ? { speaker } : {}, occurredAt: REF };
  const entities = await x.extractEntities(input);
  const facts = await x.extractFacts({ ...input, entities });
  return { entities, facts: facts.map((f) => `${f.source} ${f.relation} ${f.target} ${f.polarity}/${f.aspect}`) };
}

describe("change model of the offline extractor", () => {
  it.each([
    ["Tariq no longer lives in Oslo.", "Tariq lives_in Oslo negative/ends"],
    ["Felix doesn't drink coffee anymore.", "Felix drink coffee negative/ends"],
    ["Bob is not working at Acme any more.", "Bob works_at Acme negative/ends"],
    ["Mara doesn't eat meat.", "Mara eat meat negative/holds"],
    ["Tariq stopped working at Acme.", "Tariq works_at Acme positive/ends"],
    ["Pat resigned from Oracle last spring.", "Pat works_at Oracle positive/ends"],
    ["Joe retired from Ford in 2019.", "Joe works_at Ford positive/ends"],
    ["Lin and Sam divorced in 2021.", "Lin married_to Sam positive/ends"],
    ["Ada sold her bakery in May.", "Ada owns bakery positive/ends"],
    ["Kim moved out of Berlin.", "Kim lives_in Berlin positive/ends"],
    ["Jo and Al broke up last year.", "Jo partner_of Al positive/ends"],
    ["Sam quit his job at IBM.", "Sam works_at IBM positive/ends"],
    ["Felix used to play football.", "Felix plays football positive/past"],
    ["Mei lived in Kyoto.", "Mei lives_in Kyoto positive/past"],
    ["Maria visited Rome yesterday.", "Maria visited Rome positive/holds"],
    ["Luis and Maria got married in 2012.", "Luis married_to Maria positive/starts"],
    ["Anya joined Spotify in September 2022.", "Anya works_at Spotify positive/starts"],
    ["Eve will start at Stripe in June.", "Eve works_at Stripe positive/will_start"],
    ["Zara's email changed to z@new.io.", "Zara email z@new.io positive/starts"],
    ["April leads the design team.", "April leads design team positive/holds"],
    ["May reports to June.", "May reports_to June positive/holds"],
    ["Jan works at Globex.", "Jan works_at Globex positive/holds"],
    ["Sofia is the CTO of Bluebird.", "Sofia cto_of Bluebird positive/holds"],
    ["Backups run every night at 2 am.", "Backups schedule every night at 2 am positive/holds"],
  ])("%s", async (text, expected) => {
    expect((await said(text)).facts).toEqual([expected]);
  });

  it("reads a month as a date beside a temporal word or a number", async () => {
    expect((await said("Ken moved to Rome in May.")).facts).toEqual(["Ken lives_in Rome positive/starts"]);
    expect((await said("The freeze starts on 1 December 2023.")).facts).toEqual(["freeze start_on 1 December 2023 positive/holds"]);
  });

  it("makes a relative of the speaker a person of their own, never the speaker's place", async () => {
    const { facts, entities } = await said("My brother Tom lives in Leeds and I live in York.", "Dana");
    expect(facts).toEqual(["Tom sibling_of Dana positive/holds", "Tom lives_in Leeds positive/holds", "Dana lives_in York positive/holds"]);
    expect(entities.find((e) => e.name === "Tom")?.kind).toBe("person");
  });

  it.each([
    // a value's noun names its slot, whatever verb holds or changes it
    ["Umbrella is on the Premium tier.", "Umbrella tier Premium tier positive/holds"],
    ["Umbrella downgraded to the Basic tier in March.", "Umbrella tier Basic tier positive/starts"],
    // a versioned product is a version slot of its own per product
    ["The web cluster runs Nginx 1.24.", "web cluster nginx_version Nginx 1.24 positive/holds"],
    ["We migrated the web cluster to Nginx 1.26.", "web cluster nginx_version Nginx 1.26 positive/starts"],
    ["The runner has switched from Python 3.10 to Python 3.12.", "runner python_version Python 3.12 positive/starts"],
    // a count of a value noun is the value; an amount of money after a verb is a price
    ["Wayne Corp has 120 seats.", "Wayne Corp seats 120 positive/holds"],
    ["The Team plan costs $15 a month.", "Team plan price $15 positive/holds"],
    ["Extra storage units cost £3 each.", "Extra storage units price £3 positive/holds"],
    // living at a numbered street is an address, one at a time
    ["Omar lives at 7 Elm Street.", "Omar address 7 Elm Street positive/holds"],
  ])("values: %s", async (text, expected) => {
    expect((await said(text)).facts).toEqual([expected]);
  });

  it.each([
    // a past tense of a verb that holds a while, a passive with a place, a period of the past: over by the telling
    ["The nightly jobs ran on Jenkins.", "nightly jobs run_on Jenkins positive/past"],
    ["The logs were kept in Splunk.", "logs kept_in Splunk positive/past"],
    ["Rosa handled the Initech renewal.", "Rosa handle Initech renewal positive/past"],
    ["Dev sang in a choir back then.", "Dev sing_in choir positive/past"],
    ["Ola used to be on the Free plan.", "Ola plan Free plan positive/past"],
    ["Nadia was a member of the chess club.", "Nadia member_of chess club positive/past"],
    ["Piet is friends with Joost.", "Piet friend_of Joost positive/holds"],
    // an event stays an event: its past tense is when it happened
    ["Maria visited Lisbon in June.", "Maria visited Lisbon positive/holds"],
    ["Dev played chess once a week.", "Dev plays chess positive/holds"],
    ["Dev played chess once.", "Dev plays chess positive/holds"],
    ["Dev was once the captain of the chess club.", "Dev captain_of chess club positive/past"],
  ])("past: %s", async (text, expected) => {
    expect((await said(text)).facts).toContain(expected);
  });

  it.each([
    ["Omar married Lena in 2017.", "Omar married_to Lena positive/starts"],
    ["Kai and Noor have been engaged since June.", "Kai partner_of Noor positive/holds"],
    ["Ines has been running the Thursday chess club since May.", "Ines run Thursday chess club positive/holds"],
    ["Rui joined Hooli as CTO in 2021.", "Rui cto_of Hooli positive/starts"],
    ["Rui joined Hooli as CTO in 2021.", "Rui works_at Hooli positive/starts"],
    ["Mia was hired as a designer at Figma last year.", "Mia works_at Figma positive/starts"],
  ])("starts: %s", async (text, expected) => {
    expect((await said(text)).facts).toContain(expected);
  });

  it.each([
    ["Rosa stopped coaching the junior team in May.", "Rosa coach_of junior team positive/ends"],
    ["Umbrella terminated its support contract.", "Umbrella terminate support contract positive/ends"],
  ])("ends: %s", async (text, expected) => {
    expect((await said(text)).facts).toContain(expected);
  });

  it("reads a date for the part of the sentence it is in, between semicolons", async () => {
    const input = { content: "Aiko worked at Sony until 2020; she works at Canon now.", metadata: {}, occurredAt: REF };
    const facts = await x.extractFacts({ ...input, entities: await x.extractEntities(input) });
    expect(facts.map((f) => [f.target, f.validUntil])).toEqual([
      ["Sony", "2020-01-01"],
      ["Canon", null],
    ]);
  });

  it.each([
    // a first word read as a modal, a verb or a season is a name when a finite verb follows it
    ["Will lives in Dundee.", "Will lives_in Dundee positive/holds"],
    ["Faith studies at Yale.", "Faith studies_at Yale positive/holds"],
    ["Autumn plays the cello.", "Autumn plays cello positive/holds"],
    ["Noah reports to Will.", "Noah reports_to Will positive/holds"],
    ["Olive and Pearl are twins.", "Olive sibling_of Pearl positive/holds"],
  ])("names: %s", async (text, expected) => {
    expect((await said(text)).facts).toContain(expected);
  });

  it("keeps a modal a modal and a season a date when no finite verb follows", async () => {
    expect((await said("Will you call Tom?")).facts).toEqual([]);
    expect((await said("Ken moved to Rome in summer.")).facts).toEqual(["Ken lives_in Rome positive/starts"]);
  });

  it("dates a relative's relation by the statement that names it, and reads the date of an 'until' clause as the end", async () => {
    expect((await said("My wife Lotte and I got married in 2009.", "Bram")).facts).toEqual(["Lotte married_to Bram positive/starts"]);
    const input = { content: "Mira taught at Leiden until she moved in 2019.", metadata: {}, occurredAt: REF };
    const facts = await x.extractFacts({ ...input, entities: await x.extractEntities(input) });
    const taught = facts.find((f) => f.target === "Leiden");
    expect([taught?.validFrom, taught?.validUntil, taught?.aspect]).toEqual([null, "2019-01-01", "past"]);
  });

  it("keeps a use of a plan, and a move between things that are no values, as the plain clauses say", async () => {
    expect((await said("Acme uses the starter plan.")).facts).toEqual(["Acme uses starter plan positive/holds"]);
    expect((await said("Umbrella migrated from Jira to Linear.")).facts).not.toContain("Umbrella migrate_to Linear positive/starts");
  });

  it("yields no fact for an instruction", async () => {
    expect((await said("Always tag the on-call engineer in incident channels.")).facts).toEqual([]);
    expect((await said("When a customer asks for a refund, open a ticket.")).facts).toEqual([]);
  });
});
