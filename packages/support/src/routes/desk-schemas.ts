// Wire schemas of the agent side's private notes and canned replies (docs/support.md#private-notes, #canned-replies):
// request validation, the typed API's in-process checks and the agent OpenAPI document from one source.
import * as z from "zod";
import { MessageBody, Timestamp } from "./schemas.js";

export const NoteBody = MessageBody.describe("The note's text, 1..20,000 characters; agents only");
export const NoteAuthor = z.string().min(1).max(200).describe("The agent who writes it");
export const NoteCreateBody = z.object({ body: NoteBody, author: NoteAuthor });
export const NoteEditBody = z.object({ body: NoteBody });
export const NoteSchema = z
  .object({ id: z.string(), body: z.string(), author: z.string(), createdAt: Timestamp, updatedAt: Timestamp })
  .describe("A private note: seen by agents only, never by the customer, interface B, a backend or an outbound event");
export const NoteIdParams = z.object({ id: z.string().min(1).max(200), noteId: z.string().min(1).max(200) });

export const SHORTCUT = /^[a-z0-9][a-z0-9_-]{0,49}$/;
export const Shortcut = z
  .string()
  .trim()
  .toLowerCase()
  .regex(SHORTCUT, "must be 1..50 of a-z, 0-9, '_' and '-', starting with a letter or digit")
  .describe("What an agent types after `/` to insert the reply; unique per product, compared in lower case (`Refund` is `refund`)");
export const CannedTitle = z.string().trim().min(1).max(200).describe("1..200 characters");
export const CannedBody = MessageBody.describe("The reply's text, 1..20,000 characters (a reply's own limit)");
export const CannedCreateBody = z.object({ shortcut: Shortcut, title: CannedTitle, body: CannedBody });
export const CannedPatchBody = z
  .object({ shortcut: Shortcut.optional(), title: CannedTitle.optional(), body: CannedBody.optional() })
  .refine((b) => b.shortcut !== undefined || b.title !== undefined || b.body !== undefined, {
    message: "give at least one of shortcut, title, body",
  });
export const CannedReplySchema = z.object({
  id: z.string(),
  shortcut: z.string(),
  title: z.string(),
  body: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
