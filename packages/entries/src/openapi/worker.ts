// The spec pool's child process: parses, validates and catalogues one document at a time, off the host's event loop and
// inside its own heap cap (`--max-old-space-size`), so a document that exhausts it ends this process and never the host.
// External `$ref` documents are fetched by the parent (it holds the spec-fetch policy) over the IPC channel.
import { type FetchReply, lowerPriority, parentFetches } from "./child-ipc.js";
import type { SpecLimits } from "./limits.js";
import { lintDocument, preloadSpectral } from "./lint.js";
import type { LintReport, LintTask } from "./lint-types.js";
import { decodeText } from "./parse.js";
import { type ValidationOutcome, validateSpec } from "./validate.js";

export interface WorkerTask {
  bytes: Uint8Array;
  baseUrl?: string;
  limits: SpecLimits;
  maxWarnings?: number;
  /** The parent fetches external documents for this task: `fetch` out, `fetched` back. */
  canFetch: boolean;
  /** Lint a valid document with this ruleset after validating it (issue #28); absent, no linting. */
  lint?: LintTask;
}

/** Parent to child. */
export type ToWorker = { type: "task"; task: WorkerTask } | { type: "fetched"; reply: FetchReply };
/**
 * Child to parent: `ready` once it listens, then per task any number of `fetch` and one `done` or `failed`. A `done`
 * with `lintFollows` is followed by one `linted`: the parent holds the validation's outcome meanwhile, so a lint that
 * runs out of time or memory costs the lint part of the answer, never the validation's verdict.
 */
export type FromWorker =
  | { type: "ready" }
  | { type: "fetch"; id: number; url: string }
  | { type: "done"; outcome: ValidationOutcome; lintFollows?: boolean }
  | { type: "linted"; lint: LintReport }
  | { type: "failed"; message: string };

function send(m: FromWorker): void {
  process.send?.(m);
}

const parent = parentFetches((id, url) => send({ type: "fetch", id, url }));

/** One fetch per document and task: the validation and the lint resolve the same references. */
function fetchOnce(): (url: URL) => Promise<Uint8Array> {
  const fetched = new Map<string, Promise<Uint8Array>>();
  return (url) => {
    let bytes = fetched.get(url.href);
    if (!bytes) fetched.set(url.href, (bytes = parent.fetch(url.href)));
    return bytes;
  };
}

async function run(task: WorkerTask): Promise<void> {
  const fetchDocument = task.canFetch && task.baseUrl ? fetchOnce() : undefined;
  let text: string | undefined;
  try {
    // the text is decoded once for both: bytes that are not UTF-8 go as they are, for the validation to refuse
    text = task.lint ? decodeText(task.bytes) : undefined;
    const outcome = await validateSpec(text ?? task.bytes, {
      baseUrl: task.baseUrl,
      limits: task.limits,
      maxWarnings: task.maxWarnings,
      fetchDocument,
    });
    const lintFollows = !!task.lint && outcome.answer.valid && text !== undefined;
    send({ type: "done", outcome, lintFollows });
    if (!lintFollows) return;
  } catch (e) {
    send({ type: "failed", message: (e as Error)?.message ?? String(e) });
    return;
  }
  const format = /^\s*[{[]/.test(text!) ? "json" : "yaml";
  const input = { text: text!, format, baseUrl: task.baseUrl, fetchDocument, maxDepth: task.limits.maxDepth } as const;
  send({ type: "linted", lint: await lintDocument(input, task.lint!) });
}

function onMessage(m: ToWorker): void {
  if (m.type === "task") {
    void run(m.task);
    return;
  }
  parent.settle(m.reply);
}

// Only as a child with an IPC channel: imported anywhere else, this module does nothing. Its arguments are the
// niceness to add (`lowerPriorityBy`) and `lint` when the deployment lints (Spectral is loaded before `ready`).
if (process.send) {
  lowerPriority(Number(process.argv[2] ?? 0));
  process.on("message", onMessage);
  const ready = () => send({ type: "ready" });
  // a load that fails is reported by every lint (`failed`), never by the validation
  if (process.argv[3] === "lint") preloadSpectral().then(ready, ready);
  else ready();
  // the parent went away (it crashed, or closed the channel): nothing is left to answer
  process.on("disconnect", () => process.exit(0));
}
