// A customer message's attachments on GitHub: the issue body or comment lists each file (name, type, size) with a
// signed, expiring download link on the kit's agent route (docs/support.md#attachment-links), images embedded when
// asked. The list sits between markers just before the hidden block, so reading the body back removes it exactly.
import { attachmentsOf } from "../../attachments/meta.js";
import type { AttachmentRef } from "../../attachments/types.js";
import type { BackendFiles } from "../../domain/backend.js";

const OPEN = "<!-- cs-files -->";
const CLOSE = "<!-- /cs-files -->";
const BLOCK = "<!-- cs:";

/** Markdown's punctuation escaped, so a file name reads as typed and never becomes a link or markup. */
const md = (s: string) => s.replace(/[\\`*_[\]()#!|~<>&]/g, (c) => `\\${c}`);

export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

function line(ref: AttachmentRef, url: string | undefined, embedImages: boolean): string {
  const what = `${ref.contentType}, ${formatSize(ref.size)}`;
  if (!url) return `- ${md(ref.name)} (${what}; id \`${ref.id}\`)`;
  const item = `- [${md(ref.name)}](${url}) (${what})`;
  return embedImages && ref.contentType.startsWith("image/") ? `${item}\n\n  ![${md(ref.name)}](${url})` : item;
}

/**
 * The body as GitHub shows it: the files the hidden block names listed before the block (unchanged when it names
 * none). Without signed links (no `attachments.links`), each file is named with its id, for agents who download with
 * their token.
 */
export async function withFileList(body: string, files: BackendFiles | undefined, embedImages: boolean): Promise<string> {
  const refs = attachmentsOf(body);
  const at = body.lastIndexOf(BLOCK);
  if (!refs.length || at === -1) return body;
  const urls = await Promise.all(refs.map((r) => files?.link(r)));
  const lines = refs.map((r, i) => line(r, urls[i], embedImages));
  const n = refs.length;
  const head = `**${n} attachment${n === 1 ? "" : "s"}**${urls.some(Boolean) ? " (the links expire)" : ""}`;
  return `${body.slice(0, at)}${OPEN}\n${head}\n\n${lines.join("\n")}\n${CLOSE}\n\n${body.slice(at)}`;
}

/** The body as the kit wrote it, from what `withFileList` made of it (bodies without a list come back unchanged). */
export function withoutFileList(body: string): string {
  const at = body.lastIndexOf(BLOCK);
  if (at === -1) return body;
  const end = `${CLOSE}\n\n`;
  if (!body.slice(0, at).endsWith(end)) return body;
  // file names are stored without angle brackets, so the last opening marker before the end is the list's
  const start = body.lastIndexOf(OPEN, at - end.length);
  if (start === -1) return body;
  return body.slice(0, start) + body.slice(at);
}
