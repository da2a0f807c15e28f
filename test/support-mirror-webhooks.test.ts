// Outbound webhooks of a product whose conversations live on GitHub: the mirror's writes carry their events like the
// built-in backend's (conversation.created with its first message, then message.created for an agent's comment
// that reaches the kit by GitHub's webhook), signed and in order, on a real socket.
import { createHmac } from "node:crypto";
import { createSupportService, githubBackend, stripMetadata } from "@mountkit/support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fakeGithub } from "../packages/support/test/fakes/github.js";
import { loadGithubDescription } from "../packages/support/test/fakes/github-openapi.js";
import { githubDelivery } from "../packages/support/test/fakes/github-webhooks.js";
import { call } from "./harness.js";
import { listen, type Running } from "./servers.js";
import { type Receiver, startReceiver } from "./webhook-receiver.js";

const REPO = "acme/mirror-events";
const SECRET = "whsec-mirror-events";
const SPI = "spi-token-gh-0123456789";
let gh: Awaited<ReturnType<typeof fakeGithub>>;
let running: Running;
let receiver: Receiver;
let service: ReturnType<typeof createSupportService>;

beforeAll(async () => {
  loadGithubDescription();
  gh = await fakeGithub({ repo: REPO, botLogin: "kit-bot" });
  receiver = await startReceiver();
  const backend = githubBackend({
    repo: REPO,
    token: `ghp_mirror_${crypto.randomUUID()}`,
    webhookSecret: SECRET,
    apiUrl: gh.url,
    reconcileIntervalMs: 0,
    minWriteIntervalMs: 0,
  });
  service = createSupportService({
    products: [{ slug: "gh", backend, spiToken: SPI }],
    pruneIntervalMs: 0,
    limits: { rateLimit: 10_000 },
    webhooks: { allowPrivate: true, pollMs: 20, retryScheduleMs: [100, 200, 300] },
  });
  running = await listen("fastify", [service]);
}, 60_000);
afterAll(async () => {
  await running?.close();
  await service?.dispose();
  await receiver?.close();
  await gh?.close();
  expect(gh.violations).toEqual([]);
});

it("a GitHub-backed conversation's creation and an agent's comment on GitHub arrive as signed webhooks", async () => {
  const sub = await call(`${running.url}/care/webhooks`, {
    body: { url: receiver.url, events: ["*"] },
    headers: { authorization: `Bearer ${SPI}` },
  });
  expect(sub.status, sub.text).toBe(201);
  const customerId = `cust_${crypto.randomUUID()}`;
  const created = await call(`${running.url}/api/conversations`, { body: { productSlug: "gh", customerId, message: "Help with GitHub" } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.conversationId as string;
  const n = Number(/_(\d+)$/.exec(id)![1]);
  const cm = gh.agentComment(n, "octo-agent", "On it");
  const delivered = await fromGithub("issue_comment", { action: "created", issue: gh.issueJson(n), comment: gh.commentJson(cm) });
  expect(delivered.status, delivered.text).toBe(200);
  // the agent's reply also moves the conversation's status, as on the built-in backend
  const got = await receiver.waitFor(4);
  const mine = got.filter((g, i) => g.payload.data.conversationId === id && got.findIndex((o) => o.id === g.id) === i);
  expect(mine.map((g) => g.payload.type)).toEqual([
    "conversation.created",
    "message.created",
    "message.created",
    "conversation.status_changed",
  ]);
  expect(mine[3]!.payload.data.from).not.toBe(mine[3]!.payload.data.to);
  mine.pop();
  // bodies as the API answers them (the issue's first comment keeps its metadata block, which clients strip)
  expect(mine.map((g) => stripMetadata(g.payload.data.body ?? g.payload.data.message?.body))).toEqual([
    "Help with GitHub",
    "Help with GitHub",
    "On it",
  ]);
  for (const g of mine) expect(receiver.verify(g, sub.body.secret)).toEqual(g.payload);
  // the ids are the ones the customer API shows
  const view = await call(`${running.url}/api/conversations/${id}?productSlug=gh&customerId=${customerId}`);
  expect(view.body.comments.map((c: { id: string }) => c.id)).toContain(mine[2]!.payload.data.id);

  // the comment deleted on GitHub: the deliveries naming it leave the log; the issue deleted there takes the rest
  const log = async () =>
    (await call(`${running.url}/care/webhooks/${sub.body.id}/deliveries?limit=100`, { headers: { authorization: `Bearer ${SPI}` } })).body
      .data as Array<{ subject: string; payload: unknown }>;
  const naming = async (text: string) => (await log()).filter((d) => JSON.stringify(d.payload).includes(text));
  expect(await naming(mine[2]!.payload.data.id)).toHaveLength(1);
  const removed = await fromGithub("issue_comment", { action: "deleted", issue: gh.issueJson(n), comment: gh.commentJson(cm) });
  expect(removed.status, removed.text).toBe(200);
  expect(await naming(mine[2]!.payload.data.id)).toEqual([]);
  expect((await log()).filter((d) => d.subject === id)).toHaveLength(3);
  const gone = await fromGithub("issues", { action: "deleted", issue: gh.issueJson(n) });
  expect(gone.status, gone.text).toBe(200);
  expect((await log()).filter((d) => d.subject === id)).toEqual([]);
});

/** A signed GitHub webhook delivery of `event` to the kit. */
function fromGithub(event: string, payload: Record<string, unknown>) {
  const json = JSON.stringify(githubDelivery(event, payload, REPO));
  return call(`${running.url}/agent/webhooks/github`, {
    rawBody: json,
    headers: {
      "content-type": "application/json",
      "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(json).digest("hex")}`,
      "x-github-event": event,
      "x-github-delivery": crypto.randomUUID(),
    },
  });
}
