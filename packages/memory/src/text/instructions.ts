// Instructions ("Always tag the on-call engineer in incident channels.", "Never deploy on Fridays."): statements a
// playbook cites as rules, which the extractors turn into no edge. Read from the sentence's opening words.

const OPENERS =
  /^(please|always|never|don't|do not|make sure|be sure|remember to|avoid|ensure|only|you must|you should|we must|we should)\b/i;

/** Verbs an imperative sentence commonly opens with. */
const IMPERATIVE = new Set(
  `add archive ask assign avoid back call cc check close confirm contact copy create delete deploy document email escalate
   file follow include inform keep label let log mention merge move note notify open page ping post put read record reply
   report request respond restart review rotate run schedule send set share start stop submit tag tell test turn update
   upload use verify wait write`
    .split(/\s+/)
    .filter(Boolean),
);

/** Whether a sentence is an instruction rather than a statement of fact. */
export function isInstruction(sentence: string): boolean {
  const s = sentence.trim();
  if (!s || /\?$/.test(s)) return false;
  if (OPENERS.test(s)) return true;
  // "When a customer asks for a refund, open a ticket": a condition, then the instruction
  const then = /^(when|whenever|if|before|after|once|during|for)\b[^,]{3,80},\s*(.+)$/i.exec(s);
  if (then) return isInstruction(then[2]!.replace(/^[a-z]/, (c) => c.toUpperCase()));
  const first = /^[A-Za-z]+/.exec(s)?.[0];
  return first !== undefined && /^[A-Z]/.test(first) && IMPERATIVE.has(first.toLowerCase()) && !/^[A-Za-z]+(s|ed)\b/.test(s);
}
