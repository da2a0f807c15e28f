// An extraction reads the brain's next queued episodes with its own (beginExtraction's `ahead`, one message to the
// SQLite writer), and the extractor may start on them while this one resolves and commits (`Extractor.prepare`).
import { createMemoryService, type Extractor, nlpExtractor } from "@mountkit/memory";
import { coreMigrations, memoryMigrations, sqlMemoryStore } from "@mountkit/sql";
import { expect, it } from "vitest";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

const T0 = Date.UTC(2024, 0, 1);

forEachDatabase("memory extraction ahead", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, memoryMigrations]);

  it("hands the brain's next two queued episodes to the extractor as each of its extractions begins", async () => {
    const prepared: string[] = [];
    const extractor: Extractor = { ...nlpExtractor(), name: "spy", prepare: (input) => void prepared.push(input.content) };
    const service = createMemoryService({ store: sqlMemoryStore(use.db), extractor, worker: { start: false, concurrency: 1 } });
    try {
      const contents = ["Alice met Bruno.", "Chloe met Dora.", "Elias met Farah.", "Gina met Hana."];
      const ids: string[] = [];
      for (const [i, content] of contents.entries()) {
        ids.push((await service.api.createEpisode("ahead", { content, occurredAt: T0 + i })).id);
        if (i === 1) await service.api.createEpisode("elsewhere", { content: "Ivan met Jana.", occurredAt: T0 });
      }
      // accepted while no worker runs here: nothing is started ahead
      expect(prepared).toEqual([]);
      service.worker.start();
      await service.worker.idle();
      // one job at a time, oldest first: Alice's begins with Chloe's and Elias's, Chloe's with Elias's and Gina's, ...;
      // never another brain's, never one already extracted
      expect(prepared).toEqual([contents[1], contents[2], contents[2], contents[3], contents[3]]);
      for (const id of ids) expect((await service.api.getEpisode("ahead", id))?.status).toBe("done");
    } finally {
      await service.dispose?.();
    }
  });
});
