// `mountkit webhooks …` against a real entries server on a socket: create (the secret printed), list, update with a
// rotated secret, the delivery log and a redelivery, delete; refusals exit 1 with the server's message, usage errors 2.
import { createEntriesService, jwtVerifier, signHs256 } from "@mountkit/entries";
import { afterAll, beforeAll, expect, it } from "vitest";
import { japan } from "../packages/entries/test/fixtures/countries.js";
import { main } from "../packages/entries/src/cli.js";
import { call } from "./harness.js";
import { listen, type Running } from "./servers.js";
import { type Receiver, startReceiver } from "./webhook-receiver.js";

const SECRET = "webhooks-cli-secret-0123456789abcdef0123";
let running: Running;
let receiver: Receiver;
const service = createEntriesService({ auth: jwtVerifier({ secret: SECRET }), webhooks: { allowPrivate: true, pollMs: 20 } });

beforeAll(async () => {
  running = await listen("fastify", [service]);
  receiver = await startReceiver();
});
afterAll(async () => {
  await running.close();
  await service.dispose();
  await receiver.close();
});

async function run(...argv: string[]) {
  let out = "";
  const token = await signHs256(SECRET, { sub: "cli-owner" });
  const stdout = {
    write: (s: string) => {
      out += s;
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  const env = { MOUNTKIT_URL: running.url, MOUNTKIT_TOKEN: token };
  const code = await main(argv, env, stdout);
  return { code, out };
}

it("manages subscriptions and deliveries from the command line", async () => {
  const created = await run("webhooks", "create", "--url", receiver.url, "--event", "entry.created", "--json");
  expect(created.code).toBe(0);
  const sub = JSON.parse(created.out);
  expect(sub).toMatchObject({ url: receiver.url, events: ["entry.created"], secret: expect.stringMatching(/^whsec_/) });

  const list = await run("webhooks", "list");
  expect(list.out).toContain(`${sub.id}  enabled   entry.created  ${receiver.url}`);

  const token = await signHs256(SECRET, { sub: "cli-owner" });
  const r = await call(`${running.url}/api/v1/types/countries/data`, {
    headers: { authorization: `Bearer ${token}` },
    body: { name: "CLI", description: "d", customData: japan },
  });
  expect(r.status).toBe(201);
  await receiver.waitFor(1);
  for (let i = 0; i < 100; i++) {
    if ((await run("webhooks", "deliveries", sub.id)).out.includes("delivered")) break;
    await new Promise((res) => setTimeout(res, 20));
  }
  const log = await run("webhooks", "deliveries", sub.id, "--json");
  const [delivery] = JSON.parse(log.out).data;
  expect(delivery).toMatchObject({ eventType: "entry.created", state: "delivered", attemptCount: 1 });
  expect((await run("webhooks", "deliveries", sub.id)).out).toMatch(new RegExp(`${delivery.id}  delivered  entry.created  attempts 1  last 204`));

  expect((await run("webhooks", "redeliver", sub.id, delivery.id)).out).toBe(`queued ${delivery.id}\n`);
  await receiver.waitFor(1);
  for (let i = 0; i < 100 && receiver.got.length < 2; i++) await new Promise((res) => setTimeout(res, 20));
  expect(receiver.got.map((g) => g.id)).toEqual([delivery.eventId, delivery.eventId]);

  const rotated = JSON.parse((await run("webhooks", "update", sub.id, "--rotate-secret", "--disable", "--json")).out);
  expect(rotated.secret).not.toBe(sub.secret);
  expect(rotated.enabled).toBe(false);

  expect((await run("webhooks", "delete", sub.id)).out).toBe("deleted\n");
  expect((await run("webhooks", "show", sub.id)).code).toBe(1);
  expect((await run("webhooks", "create", "--url", "ftp://x", "--event", "entry.created")).code).toBe(1);
  expect((await run("webhooks", "create", "--url", receiver.url)).code).toBe(2);
  expect((await run("webhooks", "frobnicate")).code).toBe(2);
  expect((await run("webhooks", "list", "--service", "nowhere")).code).toBe(2);
});
