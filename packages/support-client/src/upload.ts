// Attachments from the client: the upload (the file's bytes as the body, with progress through XMLHttpRequest in a
// browser, since fetch reports none for a request body) and the download URL, both carrying the client's identity.
import type { Attachment } from "@mountkit/support/wire";
import { type ClientContext, SupportApiError } from "./transport.js";

export interface UploadOptions {
  /** The name the file is stored under (made safe by the server); default the File's own name. */
  name?: string;
  /** Bytes sent so far of `total`, as the upload goes (browsers only). */
  onProgress?(loaded: number, total: number): void;
  /** Aborts the upload (it rejects with a SupportApiError of status 0). */
  signal?: AbortSignal;
}

const UPLOAD_PATH = "/api/conversations/attachments";

/** The download URL of a file of this customer's messages: scope and signature in the query, so `<img src>` works. */
export const attachmentUrl = (cx: ClientContext, id: string) =>
  `${cx.base}${UPLOAD_PATH}/${encodeURIComponent(id)}?${cx.scope}${cx.signatureParam}`;

/** The error of a refused upload: the server's message and request id, Retry-After in ms. */
function refused(status: number, text: string, retryAfter: string | null): SupportApiError {
  let json: { error?: string; requestId?: string } | undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const ra = Number(retryAfter);
  return new SupportApiError(
    status,
    json?.error ?? `HTTP ${status}`,
    json?.requestId,
    Number.isFinite(ra) && ra > 0 ? ra * 1000 : undefined,
  );
}

function parsed(status: number, text: string, retryAfter: string | null): Attachment {
  if (status < 200 || status >= 300) throw refused(status, text, retryAfter);
  return JSON.parse(text) as Attachment;
}

/** One upload through XMLHttpRequest: the only browser API that reports a request body's progress. */
function viaXhr(url: string, headers: Record<string, string>, file: Blob, o: UploadOptions): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => o.onProgress?.(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      try {
        resolve(parsed(xhr.status, xhr.responseText, xhr.getResponseHeader("retry-after")));
      } catch (e) {
        reject(e);
      }
    };
    xhr.onerror = () => reject(new SupportApiError(0, "network error: the upload did not complete", undefined, undefined));
    xhr.onabort = () => reject(new SupportApiError(0, "upload cancelled", undefined, undefined));
    o.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

/**
 * Uploads one file for a later message's `attachments` (docs/support.md#attachments). Not retried: each upload counts
 * against the customer's daily limit, and a refusal (413, 415, 429) says why in the error's message.
 */
export async function uploadFile(cx: ClientContext, file: Blob, o: UploadOptions = {}, useXhr = false): Promise<Attachment> {
  const name = o.name ?? (file as Partial<File>).name;
  const url = `${cx.base}${UPLOAD_PATH}?${cx.scope}${name ? `&name=${encodeURIComponent(name)}` : ""}`;
  const headers = { ...cx.headers, accept: "application/json", "content-type": file.type || "application/octet-stream" };
  if (o.signal?.aborted) throw new SupportApiError(0, "upload cancelled", undefined, undefined);
  if (useXhr) return viaXhr(url, headers, file, o);
  let res: Response;
  try {
    res = await cx.doFetch(url, { method: "POST", headers, body: file, signal: o.signal });
  } catch (e) {
    throw new SupportApiError(0, `network error: ${(e as Error).message}`, undefined, undefined);
  }
  const answer = parsed(res.status, await res.text(), res.headers.get("retry-after"));
  o.onProgress?.(file.size, file.size);
  return answer;
}
