import { loadavg } from "node:os";
import { scaleQueries, seedEdges } from "./memory.js";
import { recallAtScale, type StoreName } from "./memory-scale.js";

const [stores, sizes, vec] = process.argv.slice(2);
await recallAtScale({
  stores: stores!.split(",") as StoreName[],
  sizes: sizes!.split(",").map(Number),
  vectors: vec === "both" ? [false, true] : [vec === "yes"],
  queries: scaleQueries,
  seed: seedEdges,
  print: (r) => console.log(JSON.stringify({ ...r, load: loadavg()[0] })),
});
process.exit(0);
