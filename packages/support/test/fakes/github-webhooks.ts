// GitHub webhook deliveries built from the official example payloads (@octokit/webhooks-examples): the
// example of the event and action, with the stand-in's repository, issue and comment laid over it.
import { createRequire } from "node:module";

type Json = any;
const definitions: Array<{ name: string; examples: Json[] }> = createRequire(import.meta.url)("@octokit/webhooks-examples");

/** A copy of GitHub's example for `event`/`action`; an action without an example of its own takes the event's first. */
export function githubExample(event: string, action?: string): Json {
  const def = definitions.find((d) => d.name === event);
  if (!def?.examples.length) throw new Error(`no official example of the ${event} webhook`);
  const exact = def.examples.find((e) => e.action === action);
  const example = structuredClone(exact ?? def.examples[0]);
  // borrowed from another action: drop what only that action carries
  if (!exact) delete example.changes;
  return action === undefined ? example : { ...example, action };
}

/**
 * The delivery GitHub would send: the official example with `payload` laid over it. `issue` and `comment`
 * are merged into the example's own objects, so fields the kit ignores keep GitHub's shapes.
 */
export function githubDelivery(event: string, payload: Json, repo: string): Json {
  const base = githubExample(event, payload.action);
  const out = { ...base, ...payload };
  if (base.issue && payload.issue) out.issue = { ...base.issue, ...payload.issue };
  if (base.comment && payload.comment) out.comment = { ...base.comment, ...payload.comment };
  const [owner, name] = repo.split("/");
  out.repository = { ...base.repository, ...payload.repository, full_name: payload.repository?.full_name ?? repo, name };
  out.repository.owner = { ...base.repository?.owner, login: owner };
  return out;
}

/** GitHub's example objects, for the stand-in's own answers (an issue as the REST API returns it, a comment). */
export const exampleIssue = (): Json => githubExample("issues", "opened").issue;
export const exampleComment = (): Json => githubExample("issue_comment", "created").comment;
