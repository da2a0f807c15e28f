// The diff processes' child: reads one request (`{ base, head }`, each a document's text, the document itself, or
// `{ url }` fetched by the parent under the spec-fetch policy) and answers the diff, off the host's event loop and inside
// the same heap cap as the validation processes. It speaks the spec pool's protocol (openapi/worker.ts): `task` in;
// `fetch` out and `fetched` back; one `done` or `failed`.
import { lowerPriority, parentFetches } from "../openapi/child-ipc.js";
import type { SpecLimits } from "../openapi/limits.js";
import { decodeText } from "../openapi/parse.js";
import type { FromWorker, ToWorker } from "../openapi/worker.js";
import { diffSpecs } from "./compare.js";
import type { DiffIssue, DiffTaskOutcome } from "./types.js";

export interface DiffTask {
  /** The request body: JSON `{ base, head }`. */
  bytes: Uint8Array;
  limits: SpecLimits;
  maxChanges?: number;
  canFetch: boolean;
}

function send(m: FromWorker | { type: "done"; outcome: DiffTaskOutcome }): void {
  process.send?.(m);
}

const parent = parentFetches((id, url) => send({ type: "fetch", id, url }));

const badRequest = (message: string): DiffTaskOutcome => ({ ok: false, request: true, errors: [{ path: "", message }] });

/** One side's document: text as is, a document object as JSON, a `{ url }` fetched; else the issue. */
async function side(name: "base" | "head", v: unknown, canFetch: boolean): Promise<string | Uint8Array | DiffIssue> {
  if (typeof v === "string") return v;
  if (typeof v !== "object" || v === null || Array.isArray(v))
    return { path: name, message: `${name} must be a document (text or object) or { "url": string }` };
  const keys = Object.keys(v);
  const url = (v as { url?: unknown }).url;
  if (keys.length !== 1 || typeof url !== "string") return JSON.stringify(v);
  if (!canFetch) return { path: `${name}/url`, message: "documents are not fetched here" };
  try {
    return await parent.fetch(url);
  } catch (e) {
    return { path: `${name}/url`, message: (e as Error).message };
  }
}

export async function runDiff(task: DiffTask): Promise<DiffTaskOutcome> {
  const text = decodeText(task.bytes);
  let body: unknown;
  try {
    body = text === undefined ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body !== "object" || body === null || !("base" in body) || !("head" in body))
    return badRequest('the body must be JSON { "base": ..., "head": ... }: each a document (text or object) or { "url": string }');
  const { base, head } = body as { base: unknown; head: unknown };
  const [b, h] = await Promise.all([side("base", base, task.canFetch), side("head", head, task.canFetch)]);
  const issues = [b, h].filter((x): x is DiffIssue => typeof x === "object" && !(x instanceof Uint8Array));
  if (issues.length) return { ok: false, errors: issues };
  return diffSpecs(b as string | Uint8Array, h as string | Uint8Array, { limits: task.limits, maxChanges: task.maxChanges });
}

function onMessage(m: ToWorker | { type: "task"; task: DiffTask }): void {
  if (m.type === "task") {
    runDiff(m.task as DiffTask).then(
      (outcome) => send({ type: "done", outcome }),
      (e: unknown) => send({ type: "failed", message: (e as Error)?.message ?? String(e) }),
    );
    return;
  }
  if (m.type !== "fetched") return;
  parent.settle(m.reply);
}

// Only as a child with an IPC channel (see openapi/worker.ts); the niceness argument is applied there for validation
// processes, and here by the same rule: lower, when allowed.
if (process.send) {
  lowerPriority(Number(process.argv[2] ?? 0));
  process.on("message", onMessage);
  send({ type: "ready" });
  process.on("disconnect", () => process.exit(0));
}
