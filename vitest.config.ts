import { defineConfig } from "vitest/config";

// One config at the root: tests run on TypeScript sources through the "mountkit-source" export condition; one throwaway PostgreSQL cluster per run (test/global-setup.ts).
export default defineConfig({
  resolve: { conditions: ["mountkit-source"] },
  ssr: { resolve: { conditions: ["mountkit-source"], externalConditions: ["mountkit-source"] } },
  test: {
    globalSetup: ["test/global-setup.ts"],
    include: ["packages/*/test/**/*.test.ts", "adapters/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
