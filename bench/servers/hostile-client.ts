// Load generator for `bench hardening` figure (1), in its own process so that building and sending 16 MB bodies never
// delays the latency client. argv: <base url> <clients>. Posts alias bombs, 5,000-deep schemas and maximum-size specs to
// the validation address in `clients` loops until stdin closes, then prints `statuses <n>x<status> ...`.
import { request } from "node:http";
import { aliasBomb, deepJsonSpec } from "../../packages/entries/test/fixtures/hostile-specs.js";
import { maximumSpec } from "./maximum-spec.js";

const [url, clientsArg] = process.argv.slice(2) as [string, string];
const hostile: Array<[Buffer, string]> = [
  [Buffer.from(aliasBomb()), "application/yaml"],
  [Buffer.from(deepJsonSpec(5000)), "application/json"],
  [maximumSpec(), "application/json"],
];

function post(body: Buffer, contentType: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      `${url}/api/dev/validate-openapi/`,
      { method: "POST", headers: { "content-type": contentType }, agent: false },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

let stop = false;
const statuses: Record<number, number> = {};
process.stdin.resume();
process.stdin.on("end", () => {
  stop = true;
});
// spawnTarget waits for a `url` line: it doubles as "ready"
console.log(`url ${url}`);
const loops = Array.from({ length: Number(clientsArg) || 2 }, async (_, k) => {
  for (let i = k; !stop; i++) {
    const [body, type] = hostile[i % hostile.length]!;
    const s = await post(body, type);
    statuses[s] = (statuses[s] ?? 0) + 1;
  }
});
await Promise.all(loops);
console.log(
  `statuses ${Object.entries(statuses)
    .map(([s, n]) => `${n}x${s}`)
    .join(" ")}`,
);
process.exit(0);
