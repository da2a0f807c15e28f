// A customer message's attachments on Slack: uploaded into the conversation's thread after its text is posted, one
// durable job per file (so a crash or an outage neither loses nor blocks the text), with Slack's current upload flow:
// `files.getUploadURLExternal` (filename, length), the bytes POSTed to the upload URL it returns, then
// `files.completeUploadExternal` (files [{ id, title }], channel_id, thread_ts). Needs the `files:write` scope.
import { type Job, createWorker } from "@mountkit/core/jobs";
import { attachmentsOf } from "../../attachments/meta.js";
import type { AttachmentRef } from "../../attachments/types.js";
import { supportError } from "../../errors.js";
import { attached, post, type SlackState } from "./client.js";

export interface FileJob {
  /** The thread's root ts. */
  root: string;
  /** The message (its id) the file belongs to. */
  messageId: string;
  ref: AttachmentRef;
}

/** Attempts per file (each a getUploadURLExternal, the upload, a completeUploadExternal), the worker backing off between. */
export const FILE_ATTEMPTS = 4;
const UPLOAD_TRIES = 4;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const filesQueue = (s: SlackState) => `${s.queue}.files`;

/** Queues the upload of every file `body`'s hidden block names into the thread; a repeat of one message queues nothing new. */
export async function queueUploads(s: SlackState, root: string, messageId: string, body: string | null): Promise<void> {
  const refs = attachmentsOf(body);
  if (!refs.length) return;
  const { cx } = attached(s);
  if (!cx.files) {
    cx.logger.warn("support: slack backend has no access to attachments; files not uploaded", { messageId });
    return;
  }
  const queue = filesQueue(s);
  for (const [i, ref] of refs.entries())
    await cx.jobs.enqueue({
      // the queue takes due jobs by id: the position keeps the customer's order (a retried file comes later)
      id: `${queue}:${messageId}:${String(i).padStart(2, "0")}:${ref.id}`,
      queue,
      payload: { root, messageId, ref } satisfies FileJob,
      // one thread's files in the order the customer attached them, after the text
      groupKey: root,
      maxAttempts: FILE_ATTEMPTS,
      now: cx.clock.now(),
    });
  s.filesWorker?.wake();
}

/** Slack answers HTTP 200 with `ok: false` for its errors. */
function ok<T>(r: { status: number; body: unknown }, what: string): T {
  const body = r.body as { ok?: boolean; error?: string } | undefined;
  if (r.status === 200 && body?.ok) return body as T;
  throw supportError("backend_unavailable", { message: `Slack ${what} failed: ${body?.error ?? r.status}` });
}

/**
 * The bytes POSTed to Slack's upload URL (no token: the URL is the credential). A 429 waits its `Retry-After`, a
 * 5xx or a network failure backs off (0.5 s doubling); anything else but 200 fails the attempt.
 */
async function sendBytes(s: SlackState, url: string, bytes: Uint8Array): Promise<void> {
  const doFetch = s.options.fetch ?? fetch;
  if (!/^https?:\/\//i.test(url)) throw supportError("backend_unavailable", { message: "Slack gave an upload URL that is not http(s)" });
  for (let n = 1; ; n++) {
    let status = 0;
    let wait = 500 * 2 ** (n - 1);
    try {
      const r = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: bytes as Uint8Array<ArrayBuffer>,
        signal: AbortSignal.timeout(s.options.timeoutMs ?? 60_000),
      });
      await r.arrayBuffer().catch(() => undefined);
      status = r.status;
      if (status === 200) return;
      if (status === 429) wait = Math.max(0, Number(r.headers.get("retry-after")) || 1) * 1000;
    } catch {
      status = 0;
    }
    const retry = status === 0 || status === 429 || status >= 500;
    if (!retry || n >= UPLOAD_TRIES)
      throw supportError("backend_unavailable", { message: `Slack's upload URL answered ${status || "no response"}` });
    await sleep(wait);
  }
}

/** One file into its thread: the three calls, in order. A file deleted meanwhile is skipped. */
export async function uploadFile(s: SlackState, job: FileJob): Promise<void> {
  const { cx } = attached(s);
  const bytes = await cx.files?.read(job.ref.id);
  if (!bytes) {
    cx.logger.warn("support: an attachment is gone before its Slack upload; skipped", { id: job.ref.id });
    return;
  }
  const reserved = ok<{ upload_url: string; file_id: string }>(
    await s.api.write({
      method: "POST",
      path: "/files.getUploadURLExternal",
      form: { filename: job.ref.name, length: String(bytes.byteLength) },
      maxWaitMs: 10 * 60_000,
    }),
    "files.getUploadURLExternal",
  );
  await sendBytes(s, reserved.upload_url, bytes);
  ok(
    await s.api.write({
      method: "POST",
      path: "/files.completeUploadExternal",
      form: {
        files: JSON.stringify([{ id: reserved.file_id, title: job.ref.name }]),
        channel_id: s.channel,
        thread_ts: job.root,
      },
      maxWaitMs: 10 * 60_000,
    }),
    "files.completeUploadExternal",
  );
}

/** After the last attempt: a line in the thread says which file is missing, so agents know to fetch it from the kit. */
async function uploadFailed(s: SlackState, job: FileJob, error: unknown): Promise<void> {
  const { cx } = attached(s);
  cx.logger.warn("support: uploading an attachment to Slack failed every attempt", { id: job.ref.id, error });
  const link = await cx.files?.link(job.ref).catch(() => undefined);
  const name = job.ref.name.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
  const text = `_The customer's file ${name} (${job.ref.contentType}, ${job.ref.size} bytes) could not be uploaded here${link ? `: <${link}|download it>` : `; its id is ${job.ref.id}`}._`;
  await post(s, text, { attachmentId: job.ref.id }, job.root).catch((e) =>
    cx.logger.warn("support: telling the Slack thread about a failed upload failed", { id: job.ref.id, error: e }),
  );
}

/** The worker of the channel's file uploads. */
export function filesWorker(s: SlackState) {
  const { cx } = attached(s);
  return createWorker<FileJob>({
    store: cx.jobs,
    queue: filesQueue(s),
    handler: (job: Job<FileJob>) => uploadFile(s, job.payload),
    onDead: (job, error) => uploadFailed(s, job.payload, error),
    concurrency: 1,
    pollMs: s.options.workerPollMs ?? 1000,
    backoffMs: s.options.fileRetryBackoffMs === undefined ? undefined : () => s.options.fileRetryBackoffMs!,
    clock: cx.clock,
    logger: cx.logger,
  });
}
