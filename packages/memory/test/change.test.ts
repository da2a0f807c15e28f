// The change model through the pipeline (docs/memory.md#what-changed): endings, negation, past states, events that
// start a state, supersession per side, changed values, names that are months, roles, schedules, relatives,
// instructions and host relations, read back with `asOf` (valid time) and `knownAt` (transaction time).
import { afterEach, describe, expect, it } from "vitest";
import type { MemoryServiceOptions } from "../src/index.js";
import { setup } from "./helpers.js";

let dispose: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const d of dispose) await d();
  dispose = [];
});

const at = (iso: string) => Date.parse(iso);

async function brain(options: MemoryServiceOptions = {}) {
  const s = await setup({ extraction: { threads: 0 }, ...options });
  dispose.push(() => s.service.dispose());
  /** Stores a statement told at `when` (the clock moves on, so each statement is known from its own ingestion). */
  const tell = async (content: string, when: string, metadata?: Record<string, unknown>) => {
    s.clock.set(at(when) + 3_600_000);
    return s.ingest(content, { occurredAt: when, metadata });
  };
  /** "source relation target" of the edges visible at `asOf` (and `knownAt`), sorted. */
  const facts = async (asOf: string, knownAt?: string) => {
    const names = new Map((await s.api.listEntities("brain-a", { limit: 500 })).items.map((e) => [e.id, e.name]));
    const edges = await s.api.listEdges("brain-a", { limit: 500, asOf: at(asOf), ...(knownAt ? { knownAt: at(knownAt) } : {}) });
    return edges.items.map((e) => `${names.get(e.source)} ${e.relation} ${names.get(e.target)}`).sort();
  };
  return { ...s, tell, facts };
}

describe("change model: endings and negation", () => {
  it("'no longer' ends the valid edge at the telling, creates no positive fact and no entity 'longer'", async () => {
    const b = await brain();
    await b.tell("Tariq lives in Oslo.", "2020-01-01T00:00:00Z");
    const ending = await b.tell("Tariq no longer lives in Oslo.", "2023-06-01T00:00:00Z");
    expect(await b.facts("2022-01-01T00:00:00Z")).toEqual(["Tariq lives_in Oslo"]);
    expect(await b.facts("2023-07-01T00:00:00Z")).toEqual([]);
    expect(ending.edgeIds).toEqual([]);
    const names = (await b.api.listEntities("brain-a", { limit: 50 })).items.map((e) => e.name);
    expect(names).not.toContain("longer");
    // the ended edge cites the ending statement and its episode
    const edge = (await b.api.listEdges("brain-a", { limit: 10 })).items[0]!;
    expect(edge.tInvalid).toBe("2023-06-01T00:00:00.000Z");
    expect(edge.invalidationReason).toContain(ending.id);
    expect(edge.invalidationReason).toContain("Tariq no longer lives in Oslo.");
    // before the ending was known, the memory believed Tariq still lived there
    expect(await b.facts("2023-07-01T00:00:00Z", "2023-05-01T00:00:00Z")).toEqual([]);
    expect(await b.facts("2020-06-01T00:00:00Z", "2023-05-01T00:00:00Z")).toEqual(["Tariq lives_in Oslo"]);
  });

  it("'doesn't ... anymore' and 'not ... any more' end the fact; a plain negation ends it without a past", async () => {
    const b = await brain();
    await b.tell("Felix drinks coffee.", "2021-01-01T00:00:00Z");
    await b.tell("Felix doesn't drink coffee anymore.", "2022-01-01T00:00:00Z");
    await b.tell("Bob works at Acme.", "2021-01-01T00:00:00Z");
    await b.tell("Bob is not working at Acme any more.", "2022-03-01T00:00:00Z");
    expect(await b.facts("2021-06-01T00:00:00Z")).toEqual(["Bob works_at Acme", "Felix drink coffee"]);
    expect(await b.facts("2022-06-01T00:00:00Z")).toEqual([]);
    const neg = await b.tell("Mara doesn't eat meat.", "2022-04-01T00:00:00Z");
    expect(neg.edgeIds).toEqual([]);
    expect(await b.facts("2021-01-01T00:00:00Z")).not.toContain("Mara eat meat");
  });

  it("events that end a state close it at their date: resigned, retired, divorced, sold, moved out, left, quit, broke up", async () => {
    const b = await brain();
    await b.tell("Lin is married to Sam.", "2015-01-01T00:00:00Z");
    await b.tell("Ada owns a bakery.", "2018-01-01T00:00:00Z");
    await b.tell("Kim lives in Berlin.", "2018-01-01T00:00:00Z");
    await b.tell("Pat works at Oracle.", "2019-01-01T00:00:00Z");
    await b.tell("Pat resigned from Oracle last spring.", "2023-09-01T00:00:00Z");
    await b.tell("Lin and Sam divorced in 2021.", "2023-09-01T00:00:00Z");
    await b.tell("Ada sold her bakery in May.", "2023-09-01T00:00:00Z");
    await b.tell("Kim moved out of Berlin in 2022.", "2023-09-01T00:00:00Z");
    expect(await b.facts("2020-06-01T00:00:00Z")).toEqual([
      "Ada owns bakery",
      "Kim lives_in Berlin",
      "Lin married_to Sam",
      "Pat works_at Oracle",
    ]);
    expect(await b.facts("2023-04-01T00:00:00Z")).toEqual(["Ada owns bakery"]);
    expect(await b.facts("2023-10-01T00:00:00Z")).toEqual([]);
  });

  it("an ending first heard keeps the state it ends, with an open start: an asOf before the end finds it", async () => {
    const b = await brain();
    await b.tell("Joe retired from Ford in 2019.", "2023-01-01T00:00:00Z");
    await b.tell("Mei lived in Kyoto until 2018.", "2023-01-01T00:00:00Z");
    await b.tell("Sam quit his job at IBM.", "2023-01-01T00:00:00Z");
    expect(await b.facts("2010-01-01T00:00:00Z")).toEqual(["Joe works_at Ford", "Mei lives_in Kyoto", "Sam works_at IBM"]);
    expect(await b.facts("2018-06-01T00:00:00Z")).toEqual(["Joe works_at Ford", "Sam works_at IBM"]);
    expect(await b.facts("2023-02-01T00:00:00Z")).toEqual([]);
  });

  it("an 'until' statement closes the open edge the brain holds instead of repeating it", async () => {
    const b = await brain();
    await b.tell("Mei works at Nintendo.", "2015-01-01T00:00:00Z");
    await b.tell("Mei worked at Nintendo until 2018.", "2023-01-01T00:00:00Z");
    const all = await b.api.listEdges("brain-a", { limit: 10 });
    expect(all.items).toHaveLength(1);
    expect(all.items[0]!.tInvalid).toBe("2018-01-01T00:00:00.000Z");
  });

  it("a take-over gives the new holder the old holder's relation and ends the old one's", async () => {
    const b = await brain();
    await b.tell("Dora maintains the billing SDK.", "2021-01-01T00:00:00Z");
    await b.tell("Sami took over the billing SDK in May.", "2023-06-01T00:00:00Z");
    await b.tell("Sami has taken over the release notes.", "2023-06-01T00:00:00Z");
    expect(await b.facts("2022-01-01T00:00:00Z")).toEqual(["Dora maintains billing SDK"]);
    expect(await b.facts("2023-07-01T00:00:00Z")).toEqual(["Sami maintains billing SDK", "Sami responsible_for release notes"]);
  });

  it("a hand-over is the mirror of a take-over: the receiver takes the giver's relation and the giver's ends", async () => {
    const b = await brain();
    await b.tell("Olu owns the onboarding guide.", "2021-01-01T00:00:00Z");
    await b.tell("Olu handed the onboarding guide to Bettina.", "2023-06-01T00:00:00Z");
    await b.tell("Bettina passed on the style guide to Olu.", "2023-06-01T00:00:00Z");
    expect(await b.facts("2022-01-01T00:00:00Z")).toEqual(["Olu owns onboarding guide"]);
    expect(await b.facts("2023-07-01T00:00:00Z")).toEqual(["Bettina owns onboarding guide", "Olu responsible_for style guide"]);
  });

  it("an event that ends and matches no edge of its relation ends the states linking the same two", async () => {
    const b = await brain();
    await b.tell("Hugo leads the QA guild.", "2021-01-01T00:00:00Z");
    await b.tell("Initech is on the Premium tier.", "2021-01-01T00:00:00Z");
    await b.tell("Hugo visited Lisbon.", "2021-02-01T00:00:00Z");
    await b.tell("Hugo left the QA guild in March.", "2023-04-01T00:00:00Z");
    await b.tell("Initech cancelled its Premium tier in March.", "2023-04-01T00:00:00Z");
    expect(await b.facts("2022-01-01T00:00:00Z")).toEqual(["Hugo leads QA guild", "Hugo visited Lisbon", "Initech tier Premium tier"]);
    // the visit is an event: nothing ends it
    expect(await b.facts("2023-05-01T00:00:00Z")).toEqual(["Hugo visited Lisbon"]);
  });
});

describe("change model: past, events that start a state, supersession", () => {
  it("a past state or 'used to' ends no later than the episode", async () => {
    const b = await brain();
    await b.tell("Mei lived in Kyoto.", "2023-03-01T00:00:00Z");
    await b.tell("Felix used to play football.", "2023-03-01T00:00:00Z");
    expect(await b.facts("2020-01-01T00:00:00Z")).toEqual(["Felix plays football", "Mei lives_in Kyoto"]);
    expect(await b.facts("2023-04-01T00:00:00Z")).toEqual([]);
  });

  it("an event that starts a state dates it from the text: married in 2012, joined in September 2022", async () => {
    const b = await brain();
    await b.tell("Luis and Maria got married in 2012.", "2023-05-01T00:00:00Z");
    await b.tell("Anya joined Spotify in September 2022.", "2023-05-01T00:00:00Z");
    expect(await b.facts("2011-06-01T00:00:00Z")).toEqual([]);
    expect(await b.facts("2012-06-01T00:00:00Z")).toEqual(["Luis married_to Maria"]);
    expect(await b.facts("2022-10-01T00:00:00Z")).toEqual(["Anya works_at Spotify", "Luis married_to Maria"]);
    expect(await b.facts("2022-08-01T00:00:00Z")).not.toContain("Anya works_at Spotify");
  });

  it("a new holder of a single-valued object replaces the old one; a kind ('a dog') displaces nobody", async () => {
    const b = await brain();
    await b.tell("Sofia is the CTO of Bluebird.", "2020-01-01T00:00:00Z");
    await b.tell("Tom has a dog.", "2021-01-01T00:00:00Z");
    await b.tell("Ana owns a dog.", "2021-01-01T00:00:00Z");
    await b.tell("Eli owns a dog.", "2021-02-01T00:00:00Z");
    await b.tell("Omar is the CTO of Bluebird.", "2022-01-01T00:00:00Z");
    await b.tell("Kenji owns the release checklist.", "2023-01-01T00:00:00Z");
    await b.tell("Ravi owns the release checklist now.", "2023-06-01T00:00:00Z");
    expect(await b.facts("2023-03-01T00:00:00Z")).toEqual([
      "Ana owns dog",
      "Eli owns dog",
      "Kenji owns release checklist",
      "Omar cto_of Bluebird",
      "Tom has dog",
    ]);
    expect(await b.facts("2023-07-01T00:00:00Z")).toContain("Ravi owns release checklist");
    expect(await b.facts("2023-07-01T00:00:00Z")).not.toContain("Kenji owns release checklist");
    expect(await b.facts("2021-01-01T00:00:00Z")).toContain("Sofia cto_of Bluebird");
  });

  it("a value that changes ends the old value", async () => {
    const b = await brain();
    await b.tell("Zara's email is z@old.io.", "2022-01-01T00:00:00Z");
    await b.tell("Zara's email changed to z@new.io.", "2023-01-01T00:00:00Z");
    expect(await b.facts("2022-06-01T00:00:00Z")).toEqual(["Zara email z@old.io"]);
    expect(await b.facts("2023-06-01T00:00:00Z")).toEqual(["Zara email z@new.io"]);
  });
});

describe("change model: names, roles, schedules, first person, instructions", () => {
  it("reads months as names in a clause's subject and object", async () => {
    const b = await brain();
    await b.tell("April leads the design team.", "2023-01-01T00:00:00Z");
    await b.tell("May reports to June.", "2023-01-01T00:00:00Z");
    await b.tell("Jan works at Globex.", "2023-01-01T00:00:00Z");
    expect(await b.facts("2023-02-01T00:00:00Z")).toEqual(["April leads design team", "Jan works_at Globex", "May reports_to June"]);
  });

  it("keeps a schedule as a fact", async () => {
    const b = await brain();
    await b.tell("Backups run every night at 2 am.", "2023-01-01T00:00:00Z");
    expect(await b.facts("2023-02-01T00:00:00Z")).toEqual(["Backups schedule every night at 2 am"]);
  });

  it("attributes first person and relatives: Tom in Leeds, the speaker in York, Tom her sibling, never Tom in York", async () => {
    const b = await brain();
    await b.tell("My brother Tom lives in Leeds and I live in York.", "2023-01-01T00:00:00Z", { speaker: "Dana" });
    expect(await b.facts("2023-02-01T00:00:00Z")).toEqual(["Dana lives_in York", "Tom lives_in Leeds", "Tom sibling_of Dana"]);
    // coreference across the sentences of one episode
    await b.tell("Priya joined Acme in 2020. She lives in Pune.", "2023-01-01T00:00:00Z");
    expect(await b.facts("2023-02-01T00:00:00Z")).toEqual(expect.arrayContaining(["Priya lives_in Pune", "Priya works_at Acme"]));
  });

  it("stores an instruction as a playbook rule, not as an edge", async () => {
    const b = await brain();
    const ep = await b.tell("Always tag the on-call engineer in incident channels.", "2023-01-01T00:00:00Z", { playbook: "incidents" });
    expect(ep.edgeIds).toEqual([]);
    const playbook = await b.api.getPlaybook("brain-a", "incidents");
    expect(playbook.content).toContain("## Rules");
    expect(playbook.content).toContain("Always tag the on-call engineer in incident channels.");
  });

  it("takes a host's relations: verbs, start and end verbs, cardinality per object", async () => {
    const relations = [
      { name: "mentors", verbs: ["mentor"], starts: ["start mentoring"], ends: ["stop mentoring"], cardinality: "object" as const },
    ];
    const b = await brain({ relations });
    await b.tell("Kim mentors Ravi.", "2022-01-01T00:00:00Z");
    await b.tell("Lea mentors Ravi.", "2023-01-01T00:00:00Z");
    expect(await b.facts("2022-06-01T00:00:00Z")).toEqual(["Kim mentors Ravi"]);
    expect(await b.facts("2023-06-01T00:00:00Z")).toEqual(["Lea mentors Ravi"]);
    await b.tell("Lea stopped mentoring Ravi.", "2023-09-01T00:00:00Z");
    expect(await b.facts("2023-10-01T00:00:00Z")).toEqual([]);
  });
});

describe("change model: any extractor's output", () => {
  it("an extractor's polarity and aspect (the OpenAI-compatible schema's) go through the same endings", async () => {
    const extractor = {
      name: "scripted",
      extractEntities: async () => [
        { name: "Tariq", kind: "person" as const },
        { name: "Oslo", kind: "place" as const },
      ],
      extractFacts: async (input: { content: string }) =>
        input.content.includes("no longer")
          ? [
              {
                source: "Tariq",
                relation: "lives_in",
                target: "Oslo",
                fact: input.content,
                polarity: "negative" as const,
                aspect: "ends" as const,
              },
            ]
          : [{ source: "Tariq", relation: "live_in", target: "Oslo", fact: input.content }],
    };
    const b = await brain({ extractor });
    await b.tell("Tariq lives in Oslo.", "2020-01-01T00:00:00Z");
    await b.tell("Tariq no longer lives in Oslo.", "2023-01-01T00:00:00Z");
    expect(await b.facts("2021-01-01T00:00:00Z")).toEqual(["Tariq lives_in Oslo"]);
    expect(await b.facts("2023-02-01T00:00:00Z")).toEqual([]);
  });
});

describe("change model: roles, passives and values whatever the wording", () => {
  it("a new holder of a definite role ends the old one: manager, tech lead, CEO, coach, on call, a passive owner", async () => {
    const b = await brain();
    const pairs: Array<[string, string, string]> = [
      ["Sophie manages the data team.", "Marcus is the new manager of the data team.", "data team"],
      ["Luca is the tech lead of the mobile team.", "Amara is now the mobile team's tech lead.", "mobile team"],
      ["Jack Barker is the CEO of Hooli.", "Gavin Belson replaced Jack Barker as CEO of Hooli.", "Hooli"],
      ["Mr Adeyemi coaches the under-12 team.", "The under-12 team has a new coach, Ms Park.", "under-12 team"],
      ["Dana is the on-call engineer for payments.", "Eli is now the on-call engineer for payments.", "payments"],
      ["Carla owns the Initech account.", "The Initech account is now owned by Dev.", "Initech account"],
    ];
    for (const [before, after] of pairs) {
      await b.tell(before, "2022-01-01T00:00:00Z");
      await b.tell(after, "2023-06-01T00:00:00Z");
    }
    const then = await b.facts("2022-06-01T00:00:00Z");
    const now = await b.facts("2023-07-01T00:00:00Z");
    for (const [, , group] of pairs) {
      expect(
        then.filter((f) => f.endsWith(` ${group}`)),
        group,
      ).toHaveLength(1);
      expect(
        now.filter((f) => f.endsWith(` ${group}`)),
        group,
      ).toHaveLength(1);
    }
    expect(now).toEqual(
      expect.arrayContaining([
        "Marcus manages data team",
        "Amara tech_lead_of mobile team",
        "Gavin Belson ceo_of Hooli",
        "Ms Park coach_of under-12 team",
        "Eli on_call_for payments",
        "Dev owns Initech account",
      ]),
    );
  });

  it("a value set anew ends the old one, and values that differ only in their numbers stay apart", async () => {
    const b = await brain();
    await b.tell("Initech's support email is help@initech.example.", "2022-01-01T00:00:00Z");
    await b.tell("Initech changed its support email to support@initech.example.", "2023-06-01T00:00:00Z");
    await b.tell("Hooli has 40 seats.", "2022-01-01T00:00:00Z");
    await b.tell("Hooli reduced its seats from 40 to 25.", "2023-06-01T00:00:00Z");
    await b.tell("Ken's phone number is +44 20 7946 0018.", "2022-01-01T00:00:00Z");
    await b.tell("Ken has a new number: +44 20 7946 0999.", "2023-06-01T00:00:00Z");
    await b.tell("The Android app is on version 5.2.", "2022-01-01T00:00:00Z");
    await b.tell("The Android app is now on version 5.4.", "2023-06-01T00:00:00Z");
    const now = await b.facts("2023-07-01T00:00:00Z");
    expect(now).toEqual(
      expect.arrayContaining([
        "Initech support_email support@initech.example",
        "Hooli seats 25",
        "Ken phone +44 20 7946 0999",
        "Android app version version 5.4",
      ]),
    );
    for (const old of ["help@initech.example", "0018", "version 5.2"])
      expect(
        now.some((f) => f.endsWith(old)),
        old,
      ).toBe(false);
    const names = (await b.api.listEntities("brain-a", { limit: 100 })).items.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(["version 5.2", "version 5.4"]));
  });
});

describe("change model: schedules however stated", () => {
  it("reads the whole recurring time, adverbs and calendar days included, and a new schedule ends the old", async () => {
    const b = await brain();
    await b.tell("The team stand-up happens every Monday at 9:30.", "2023-01-09T00:00:00Z");
    await b.tell("Payroll runs on the 25th of each month.", "2023-01-09T00:00:00Z");
    await b.tell("The security job runs nightly at 23:00.", "2023-01-09T00:00:00Z");
    await b.tell("The board meeting is held every quarter on the first Monday.", "2023-01-09T00:00:00Z");
    await b.tell("The board meeting now takes place on the first Tuesday of each quarter.", "2023-09-20T00:00:00Z");
    await b.tell("The reporting job runs at 6 am.", "2023-04-01T00:00:00Z");
    await b.tell("The reporting job used to run at 6 am; it now runs at 7 am.", "2023-10-01T00:00:00Z");
    const schedules = async (asOf: string) => (await b.facts(asOf)).filter((f) => f.includes(" schedule "));
    expect(await schedules("2023-06-01T00:00:00Z")).toEqual([
      "Payroll schedule 25th of each month",
      "board meeting schedule every quarter on the first Monday",
      "reporting job schedule 6 am",
      "security job schedule nightly at 23:00",
      "team stand-up schedule every Monday at 9:30",
    ]);
    const later = await schedules("2023-11-01T00:00:00Z");
    expect(later).toEqual(expect.arrayContaining(["board meeting schedule first Tuesday of each quarter", "reporting job schedule 7 am"]));
    expect(later.filter((f) => f.startsWith("board meeting") || f.startsWith("reporting job"))).toHaveLength(2);
  });
});
