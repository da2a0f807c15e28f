// Extractor over any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp, Ollama...)
// with JSON-schema structured output. Two calls per episode, as the pipeline's stages 1 and 3.
import { iso } from "@mountkit/core";
import { exponentialCap, fullJitter, type RandomSource } from "@mountkit/core/jobs";
import type { EntityKind } from "../domain/types.js";
import { ASPECTS, type Aspect, type ExtractedEntity, type ExtractedFact, type ExtractionInput, type Extractor } from "./types.js";

export interface OpenAiExtractorOptions {
  /** e.g. `https://api.openai.com/v1`; the extractor POSTs `{baseUrl}/chat/completions`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  temperature?: number;
  timeoutMs?: number;
  /** Retries on 429, 5xx and network errors, with full-jitter backoff under a cap of 250 ms doubling up to 8 s. */
  retries?: number;
  fetch?: typeof fetch;
  /** The backoff's random source (tests inject one). Default Math.random. */
  random?: RandomSource;
  /** Waits between retries; tests replace it to record the delays. Default a timer. */
  sleep?: (ms: number) => Promise<void>;
}

const KINDS: EntityKind[] = ["person", "organization", "place", "product", "date", "other"];

const ENTITY_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["entities"],
  properties: {
    entities: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "kind", "aliases"],
        properties: {
          name: { type: "string", description: "Most complete name used in the text" },
          kind: { type: "string", enum: KINDS },
          aliases: { type: "array", items: { type: "string" }, description: "Other ways the text refers to it" },
        },
      },
    },
  },
} as const;

const FACT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["facts"],
  properties: {
    facts: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["source", "relation", "target", "fact", "validFrom", "validUntil", "polarity", "aspect"],
        properties: {
          source: { type: "string" },
          relation: { type: "string", description: "snake_case, e.g. lives_in, works_at, married_to, likes" },
          target: { type: "string" },
          fact: { type: "string", description: "One self-contained sentence, pronouns replaced by names" },
          validFrom: { type: ["string", "null"], description: "ISO date (YYYY-MM-DD) the fact became true, if the text says" },
          validUntil: { type: ["string", "null"], description: "ISO date the fact stopped being true, if the text says" },
          polarity: {
            type: "string",
            enum: ["positive", "negative"],
            description: "negative when the text denies the relation ('no longer lives in', 'doesn't drink ... anymore')",
          },
          aspect: {
            type: "string",
            enum: ["holds", "starts", "ends", "past", "will_start"],
            description:
              "holds: true now; starts: an event began it ('joined', 'got married'); ends: an event or negation ended it ('resigned from', 'no longer'); past: held before and no longer ('lived', 'used to'); will_start: begins in the future",
          },
        },
      },
    },
  },
} as const;

const ENTITY_PROMPT = `You extract named entities from one memory episode for a knowledge graph.
Return people, organisations, places, products, dates and other proper nouns or significant concepts the text states facts about.
Use the speaker of the text (a "Name:" prefix or the given speaker) as a person. Do not invent entities.`;

const FACT_PROMPT = `You extract facts from one memory episode as edges between entities: (source, relation, target, fact).
Use the given entity names exactly for source and target; you may add a short target name for a concept when no entity fits.
Relations are snake_case verbs; prefer: lives_in, works_at, studies_at, married_to, partner_of, born_in, born_on, reports_to, has_role, likes, dislikes, owns, uses, visited, met, founded, member_of.
Replace pronouns with names in the fact sentence. Resolve relative dates against the episode's reference time and give ISO dates.
Say what changed: for an ending ("Pat resigned from Oracle in May", "Tariq no longer lives in Oslo") give the relation that ended (works_at, lives_in) with aspect "ends" (negated: polarity "negative") and its date in validUntil; for an event that starts a state ("joined Spotify in 2022", "got married in 2012") the state's relation with aspect "starts" and validFrom. Give no fact for instructions ("Always tag the on-call engineer").`;

class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`chat completions endpoint answered ${status}`);
  }
}

export function openAiExtractor(o: OpenAiExtractorOptions): Extractor {
  const doFetch = o.fetch ?? fetch;
  const url = `${o.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const retries = o.retries ?? 2;
  const random = o.random ?? Math.random;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  async function complete<T>(system: string, user: string, schemaName: string, schema: object, signal?: AbortSignal): Promise<T> {
    const body = JSON.stringify({
      model: o.model,
      temperature: o.temperature ?? 0,
      messages: [
        { role: "system", content: system },
        { role: "user", content: user },
      ],
      response_format: { type: "json_schema", json_schema: { name: schemaName, strict: true, schema } },
    });
    let lastError: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      // full jitter: many episodes failing against one endpoint do not retry in lockstep
      if (attempt) await sleep(fullJitter(exponentialCap(attempt - 1, 250, 8_000), random));
      try {
        const res = await doFetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
          body,
          signal: AbortSignal.any([AbortSignal.timeout(o.timeoutMs ?? 60_000), ...(signal ? [signal] : [])]),
        });
        if (!res.ok) throw new HttpStatusError(res.status);
        const data = (await res.json()) as { choices?: Array<{ message?: { content?: string | null; refusal?: string | null } }> };
        const message = data.choices?.[0]?.message;
        if (message?.refusal) throw new Error(`model refused: ${message.refusal}`);
        if (typeof message?.content !== "string") throw new Error("chat completions response has no message content");
        try {
          return JSON.parse(message.content) as T;
        } catch {
          throw new Error("model output is not valid JSON");
        }
      } catch (err) {
        lastError = err;
        const retryable = err instanceof HttpStatusError ? err.status === 429 || err.status >= 500 : err instanceof TypeError;
        if (!retryable || signal?.aborted) throw err;
      }
    }
    throw lastError;
  }

  const header = (input: ExtractionInput) => {
    const speaker = typeof input.metadata.speaker === "string" ? `Speaker: ${input.metadata.speaker}\n` : "";
    return `Reference time: ${iso(input.occurredAt)}\n${speaker}Text:\n"""\n${input.content}\n"""`;
  };

  return {
    name: `openai:${o.model}`,
    async extractEntities(input) {
      const out = await complete<{ entities?: unknown }>(ENTITY_PROMPT, header(input), "entities", ENTITY_SCHEMA, input.signal);
      if (!Array.isArray(out.entities)) throw new Error("model output has no entities array");
      return out.entities.flatMap((e): ExtractedEntity[] => {
        const r = e as Record<string, unknown>;
        if (typeof r?.name !== "string" || !r.name.trim()) return [];
        const kind = KINDS.includes(r.kind as EntityKind) ? (r.kind as EntityKind) : "other";
        const aliases = Array.isArray(r.aliases) ? r.aliases.filter((a): a is string => typeof a === "string" && a.trim().length > 0) : [];
        return [{ name: r.name.trim(), kind, aliases }];
      });
    },
    async extractFacts(input) {
      const list = input.entities
        .map((e) => `- ${e.name} (${e.kind})${e.aliases?.length ? `, also: ${e.aliases.join(", ")}` : ""}`)
        .join("\n");
      const out = await complete<{ facts?: unknown }>(
        FACT_PROMPT,
        `${header(input)}\nEntities:\n${list}`,
        "facts",
        FACT_SCHEMA,
        input.signal,
      );
      if (!Array.isArray(out.facts)) throw new Error("model output has no facts array");
      return out.facts.flatMap((f): ExtractedFact[] => {
        const r = f as Record<string, unknown>;
        if (typeof r?.source !== "string" || typeof r.target !== "string" || typeof r.relation !== "string" || typeof r.fact !== "string")
          return [];
        return [
          {
            source: r.source,
            target: r.target,
            relation: r.relation,
            fact: r.fact,
            validFrom: typeof r.validFrom === "string" ? r.validFrom : null,
            validUntil: typeof r.validUntil === "string" ? r.validUntil : null,
            // polarity and aspect go through the pipeline's change model like the offline extractor's
            ...(r.polarity === "positive" || r.polarity === "negative" ? { polarity: r.polarity } : {}),
            ...(ASPECTS.includes(r.aspect as Aspect) ? { aspect: r.aspect as Aspect } : {}),
          },
        ];
      });
    },
  };
}
