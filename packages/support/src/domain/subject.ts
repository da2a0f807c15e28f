// The default subject of a conversation: the first line of the first message, cut to 80 characters.
import { stripMetadata } from "./metadata.js";

export const FALLBACK_SUBJECT = "Support request";

export function defaultSubject(message: string): string {
  const line = stripMetadata(message)
    .split(/\r\n|\r|\n/)
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!line) return FALLBACK_SUBJECT;
  // cut on code points so a surrogate pair is never split
  return Array.from(line).slice(0, 80).join("");
}

/** The subject a conversation gets, the same on interfaces A and B: the given one unless absent or only whitespace. */
export function subjectOr(given: string | undefined, firstMessage: string): string {
  return given?.trim() ? given : defaultSubject(firstMessage);
}
