// Benchmark target: the entries service alone in this process, plus a route serving a small spec for `apis` submissions.
// argv: <framework>. env BENCH_SECRET: HS256 secret. Prints `url <base>`; the spec is at <base>/bench/spec.json.
import { defineService, json, route } from "@mountkit/core";
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { FRAMEWORKS, type Framework, listen } from "../../examples/server/src/listen.js";
import { generateSpec } from "../../packages/entries/test/fixtures/spec-generator.js";

const framework = (process.argv[2] ?? "fastify") as Framework;
if (!FRAMEWORKS.includes(framework)) throw new Error(`framework must be one of ${FRAMEWORKS.join(", ")}`);
const entries = createEntriesService({ auth: jwtVerifier({ secret: process.env.BENCH_SECRET! }), specFetch: { allowPrivate: true } });
const spec = generateSpec({ endpoints: 24, version: "1.0", format: "3.1", propertiesPerSchema: 6, descriptionLength: 40 }).document;
const specHost = defineService({
  name: "spec-host",
  title: "spec host",
  version: "1",
  mounts: ["/bench"],
  errorBody: (e) => ({ error: e.message }),
  routes: [route({ method: "GET", path: "/bench/spec.json", handler: () => json(200, spec) })],
});
const running = await listen(framework, [entries, specHost]);
console.log(`url ${running.url}`);
process.stdin.resume();
process.stdin.on("end", async () => {
  await running.close();
  process.exit(0);
});
