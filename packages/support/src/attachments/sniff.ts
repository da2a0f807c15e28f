// What an upload is, read from its bytes with `file-type` (magic numbers), never from the client's Content-Type or
// file name; only the allow-list is stored. Plain text has no magic number: see `isSafeText` for the rule.
import { fileTypeFromBuffer } from "file-type/core";

/** The types an attachment may have, with the extension a stored name ends in. */
export const ATTACHMENT_TYPES = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "application/pdf": "pdf",
  "text/plain": "txt",
} as const;
export type AttachmentType = keyof typeof ATTACHMENT_TYPES;

/** Other extensions a name of that type may keep (a `.jpeg` stays `.jpeg`). */
const ALIASES: Partial<Record<AttachmentType, readonly string[]>> = {
  "image/jpeg": ["jpeg", "jfif"],
  "text/plain": ["text", "log", "md", "csv"],
};

export const isImage = (contentType: string) => contentType.startsWith("image/");

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Markup a browser would render (the WHATWG MIME-sniffing spec's HTML signatures, plus SVG and XML): anywhere in the
 * text, `<` then the tag name then whitespace, `>` or `/`. A plain-text log quoting HTML is refused too: that is the
 * price of never storing a file that some viewer could take for a page.
 */
const MARKUP =
  /<(?:!doctype|html|head|body|script|iframe|object|embed|svg|math|style|title|meta|link|base|form|img|a|b|p|br|h1|div|font|table|\?xml|!--)(?=[\s/>]|$)/i;

/**
 * Plain text, as stored: valid UTF-8 (a BOM allowed), no NUL nor other C0 control characters but tab, line feed, form
 * feed and carriage return, and no markup (`MARKUP`). Served as `text/plain; charset=utf-8` with `nosniff`.
 */
export function isSafeText(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return false;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this rule refuses
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) return false;
  return !MARKUP.test(text);
}

/** The allowed type of these bytes, or null (a type outside the allow-list, or text that breaks the text rule). */
export async function sniffAttachment(bytes: Uint8Array): Promise<AttachmentType | null> {
  const found = await fileTypeFromBuffer(bytes);
  if (found) return found.mime in ATTACHMENT_TYPES ? (found.mime as AttachmentType) : null;
  return isSafeText(bytes) ? "text/plain" : null;
}

/**
 * The name an attachment is stored and served with: the client's last path segment, without control characters,
 * quotes or backslashes, at most 120 characters, ending in an extension of its sniffed type (`page.html` sent as
 * text is `page.html.txt`); `file.<ext>` when nothing is left.
 */
export function safeName(requested: string | undefined, type: AttachmentType): string {
  const ext = ATTACHMENT_TYPES[type];
  const base = (requested ?? "").split(/[/\\]/).pop() ?? "";
  let name = base
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are removed from names
    .replace(/[\u0000-\u001f\u007f"<>]/g, "")
    .trim()
    .slice(0, 120);
  if (!name || name.startsWith(".")) name = `file${name}`;
  const dot = name.lastIndexOf(".");
  const own = dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
  return own === ext || ALIASES[type]?.includes(own) ? name : `${name}.${ext}`;
}

/** `Content-Disposition`: inline only for images, ASCII fallback plus the RFC 8187 UTF-8 name. */
export function contentDisposition(name: string, contentType: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/[%;]/g, "_");
  return `${isImage(contentType) ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
