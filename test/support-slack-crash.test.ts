// kill -9 the example server while it is processing an acknowledged Slack event, restart it on the same
// SQLite file, and check that the event's work is done exactly once: the event was in the durable job
// store before Slack got its 200, and the restarted process takes over the dead one's job.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fakeSlack } from "../packages/support/test/fakes/slack.js";
import { slackEvents } from "../packages/support/test/fakes/slack-events.js";
import { call } from "./harness.js";
import { createTestDatabase, type TestDatabase } from "./sql-targets.js";
import { type ServerProcess, startServer } from "./storage/server-process.js";

const SECRET = "slack-crash-signing-secret";
const CHANNEL = "C0CRASH";
const BOT = "UBOTCRASH";

let target: TestDatabase;
let slack: Awaited<ReturnType<typeof fakeSlack>>;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  target = await createTestDatabase("sqlite");
  slack = await fakeSlack({ botUserId: BOT });
});
afterAll(async () => {
  for (const s of servers) await s.crash();
  await slack?.close();
  await target?.drop();
}, 60_000);

function signed(body: unknown) {
  const raw = JSON.stringify(body);
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = `v0=${createHmac("sha256", SECRET).update(`v0:${ts}:${raw}`).digest("hex")}`;
  return { rawBody: raw, headers: { "content-type": "application/json", "x-slack-signature": sig, "x-slack-request-timestamp": ts } };
}

it("an acknowledged Slack event is processed once by the restarted process after kill -9 mid-work", async () => {
  const env = {
    ...target.env,
    SUPPORT_PRODUCTS: "demo",
    SUPPORT_RATE_LIMIT: "1000000",
    SUPPORT_SLACK_BOT_TOKEN: "xoxb-test",
    SUPPORT_SLACK_SIGNING_SECRET: SECRET,
    SUPPORT_SLACK_CHANNEL: CHANNEL,
    SUPPORT_SLACK_API_URL: slack.url,
  };
  const first = await startServer(env);
  servers.push(first);
  const customerId = `cust_${crypto.randomUUID()}`;
  const created = await call(`${first.url}/api/conversations`, { body: { productSlug: "slack", customerId, message: "Cannot log in" } });
  expect(created.status).toBe(200);
  const id = created.body.conversationId as string;
  const root = slack.posted[0]!.ts;

  // the work of the event (looking up the replier's name) hangs in the first process
  let release!: () => void;
  slack.holdUsersInfo(new Promise<void>((r) => (release = r)));
  const reply = slack.humanReply(root, "U42", "Reset link sent, try again");
  const event = slackEvents(CHANNEL, BOT).callback(
    slackEvents(CHANNEL, BOT).message({ user: reply.user, text: reply.text, ts: reply.ts, thread_ts: root }),
    "Ev0CRASH0001",
  );
  const acked = await call(`${first.url}/agent/webhooks/slack`, signed(event));
  expect(acked.status).toBe(200);
  const since = Date.now();
  while (!slack.received.includes("users.info")) {
    if (Date.now() - since > 20_000) throw new Error(`the first process never started the work:\n${first.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await first.crash();
  release();

  const second = await startServer(env);
  servers.push(second);
  const q = `productSlug=slack&customerId=${customerId}`;
  const deadline = Date.now() + 50_000;
  let comments: Array<{ body: string; author: string; isCustomer: boolean }> = [];
  while (Date.now() < deadline) {
    const d = await call(`${second.url}/api/conversations/${id}?${q}`);
    comments = d.body.comments;
    if (comments.length) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(comments.map((c) => [c.body, c.author, c.isCustomer])).toEqual([[reply.text, "Ann (U42)", false]]);
  // Slack's retry of the same event after the restart is recognised
  expect((await call(`${second.url}/agent/webhooks/slack`, signed(event))).body).toMatchObject({ duplicate: true });
  await new Promise((r) => setTimeout(r, 500));
  expect((await call(`${second.url}/api/conversations/${id}?${q}`)).body.comments).toHaveLength(1);
  expect(slack.violations).toEqual([]);
}, 120_000);
