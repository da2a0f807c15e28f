import { describe, expect, it } from "vitest";
import { ruleBasedExtractor } from "../src/extractors/rule-based.js";

const REF = Date.UTC(2023, 4, 8);
const x = ruleBasedExtractor();

async function run(content: string, metadata: Record<string, unknown> = {}) {
  const input = { content, metadata, occurredAt: REF };
  const entities = await x.extractEntities(input);
  const facts = await x.extractFacts({ ...input, entities });
  return { entities, facts };
}

describe("rule-based extractor", () => {
  it("finds and classifies people, organisations, places, products and dates", async () => {
    const { entities } = await run("Dr. Alice Moreau joined Acme Corp in Berlin on 3 March 2023. She codes in Python with Bob.");
    const kinds = Object.fromEntries(entities.map((e) => [e.name, e.kind]));
    expect(kinds).toMatchObject({
      "Alice Moreau": "person",
      "Acme Corp": "organization",
      Berlin: "place",
      Python: "product",
      Bob: "person",
    });
    expect(entities.some((e) => e.kind === "date" && e.name.includes("2023"))).toBe(true);
    expect(Object.keys(kinds)).not.toContain("She");
  });

  it("extracts facts with relations, resolving pronouns and the speaker", async () => {
    const { facts } = await run("Alice Moreau moved to Berlin in March 2023. She works at Acme Corp.");
    expect(facts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: "Alice Moreau", relation: "lives_in", target: "Berlin", validFrom: "March 2023" }),
        expect.objectContaining({
          source: "Alice Moreau",
          relation: "works_at",
          target: "Acme Corp",
          fact: "Alice Moreau works at Acme Corp.",
        }),
      ]),
    );
    const spoken = await run("Caroline: I went to a LGBTQ support group yesterday and it was so powerful.");
    expect(spoken.facts[0]).toMatchObject({
      source: "Caroline",
      relation: "visited",
      target: "LGBTQ support group",
      validFrom: "yesterday",
    });
    expect(spoken.facts[0]!.fact).toMatch(/^Caroline went to/);
  });

  it("uses metadata.speaker for first-person text", async () => {
    const { facts } = await run("I live in Lisbon now.", { speaker: "Marta" });
    expect(facts[0]).toMatchObject({ source: "Marta", relation: "lives_in", target: "Lisbon" });
  });

  it("returns nothing for text without names", async () => {
    const { entities, facts } = await run("it was a quiet day, nothing happened.");
    expect(entities).toEqual([]);
    expect(facts).toEqual([]);
  });
});
