// A message's attachments travel in its hidden metadata block (`attachments=<JSON>`), so every backend that keeps the
// body (the store, a GitHub comment, a mirrored Slack message) keeps them too, and every view reads them back.
import { type Metadata, parseMetadata } from "../domain/metadata.js";
import type { AttachmentRef } from "./types.js";

export const ATTACHMENTS_KEY = "attachments";

/** The block's entry for these attachments (none when the list is empty). */
export function attachmentMeta(refs: readonly AttachmentRef[]): Metadata {
  if (!refs.length) return {};
  return { [ATTACHMENTS_KEY]: JSON.stringify(refs.map((r) => ({ id: r.id, name: r.name, contentType: r.contentType, size: r.size }))) };
}

const isRef = (v: unknown): v is AttachmentRef => {
  const r = v as Record<string, unknown> | null;
  return (
    typeof r === "object" &&
    r !== null &&
    typeof r.id === "string" &&
    typeof r.name === "string" &&
    typeof r.contentType === "string" &&
    typeof r.size === "number"
  );
};

/** The attachments a stored body names; empty when none (or when the entry is not the service's). */
export function attachmentsOf(body: string | null | undefined): AttachmentRef[] {
  const raw = parseMetadata(body)?.[ATTACHMENTS_KEY];
  if (!raw) return [];
  try {
    const list: unknown = JSON.parse(raw);
    return Array.isArray(list) ? list.filter(isRef).map(({ id, name, contentType, size }) => ({ id, name, contentType, size })) : [];
  } catch {
    return [];
  }
}
