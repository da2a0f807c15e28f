// Wire schemas of attachments: the ids a message names, and what comments and uploads show of each file.
import * as z from "zod";

/** At most this many ids in a request body; the configured `maxPerMessage` (default 5) is checked after. */
export const ATTACHMENT_IDS_MAX = 20;

export const AttachmentIds = z
  .array(z.string().min(1).max(200))
  .max(ATTACHMENT_IDS_MAX)
  .describe("Ids of files uploaded beforehand (docs/support.md#attachments), at most `maxPerMessage` (default 5)");

export const AttachmentSchema = z.object({
  id: z.string(),
  name: z.string().describe("The uploaded name made safe, ending in the extension of its type"),
  contentType: z
    .enum(["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "text/plain"])
    .describe("Sniffed from the bytes"),
  size: z.number().int().describe("Bytes"),
});

/** On comments and the issue: present when the message carries files. */
export const AttachmentsField = z.array(AttachmentSchema).optional().describe("Files the message carries; absent when none");
