import { defineConfig } from "vitest/config";

// The real-browser suite (Debian's Chromium through playwright-core), run by `npm test` after the main
// suite, one file at a time, so the page never competes with other test workers for the machine's cores.
export default defineConfig({
  resolve: { conditions: ["mountkit-source"] },
  ssr: { resolve: { conditions: ["mountkit-source"], externalConditions: ["mountkit-source"] } },
  test: {
    name: "browser",
    include: ["test/browser/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 1,
    // the servers here share the two cores with Chromium's renderer, GPU and network processes, which take them for
    // whole bursts: the loop-delay guard stops at 1 s in this suite (it still catches the stalls of seconds it is for)
    env: { MOUNTKIT_LOOP_DELAY_MAX_MS: process.env.MOUNTKIT_LOOP_DELAY_MAX_MS ?? "1000" },
  },
});
