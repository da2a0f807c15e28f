// Tokens of an English text from wink-nlp (part of speech, lemma, character offsets), split into
// sentences, with the date expressions wink's recogniser finds marked so they never become nouns.
import winkNLP, { type ItemEntity, type ItemSentence } from "wink-nlp";
import model from "wink-eng-lite-web-model";

export interface Token {
  /** Index in its sentence. */
  i: number;
  text: string;
  lower: string;
  /** Universal Dependencies part of speech (NOUN, PROPN, VERB, AUX, ADP, ...). */
  pos: string;
  lemma: string;
  start: number;
  end: number;
  /** Inside a date or duration expression ("last March", "from 2020 until 2030"). */
  date: boolean;
}

export interface Sentence {
  text: string;
  start: number;
  tokens: Token[];
}

let instance: ReturnType<typeof winkNLP> | undefined;
/** The model loads once per process (about 100 ms); extraction stays synchronous after that. */
const nlp = () => (instance ??= winkNLP(model, ["sbd", "pos", "ner", "negation"]));

const DATE_TYPES = new Set(["DATE", "DURATION", "TIME"]);

export function parse(text: string): Sentence[] {
  const w = nlp();
  const its = w.its;
  const doc = w.readDoc(text);
  const values = doc.tokens().out(its.value) as string[];
  const pos = doc.tokens().out(its.pos) as string[];
  // wink's typings give the lemma helper an add-ons parameter its own `out` signature does not accept
  const lemmas = doc.tokens().out(its.lemma as unknown as typeof its.value) as string[];
  const spaces = doc.tokens().out(its.precedingSpaces) as string[];
  const dateTokens = new Set<number>();
  doc.entities().each((e: ItemEntity) => {
    if (!DATE_TYPES.has(e.out(its.type) as string)) return;
    const [a, b] = e.out(its.span) as unknown as [number, number];
    for (let k = a; k <= b; k++) dateTokens.add(k);
  });
  // character offsets: wink keeps the whitespace before each token, so offsets add up exactly
  const starts: number[] = [];
  let at = 0;
  for (let k = 0; k < values.length; k++) {
    at += spaces[k]!.length;
    const found = text.indexOf(values[k]!, at);
    const s = found >= 0 && found - at <= 2 ? found : at;
    starts.push(s);
    at = s + values[k]!.length;
  }
  const out: Sentence[] = [];
  doc.sentences().each((s: ItemSentence) => {
    const [a, b] = s.out(its.span) as unknown as [number, number];
    const tokens: Token[] = [];
    for (let k = a; k <= b; k++) {
      tokens.push({
        i: k - a,
        text: values[k]!,
        lower: values[k]!.toLowerCase(),
        pos: pos[k]!,
        lemma: lemmas[k]!,
        start: starts[k]!,
        end: starts[k]! + values[k]!.length,
        date: dateTokens.has(k),
      });
    }
    if (!tokens.length) return;
    const start = tokens[0]!.start;
    out.push({ text: text.slice(start, tokens[tokens.length - 1]!.end), start, tokens });
  });
  return out;
}
