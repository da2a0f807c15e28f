// Labelled histories (issue #25): accuracy per class of what POST /v1/recall answers about short dated
// histories (endings, negation, replacements, first person, ...), on the built package with its default
// extractor. `npm run bench -- memory` prints it first; `npm run bench -- memory-histories` alone, with
// `--failures N` to list the first N missed histories.
import { createMemoryService } from "@mountkit/memory";
import { formatReport, HISTORY_TARGETS, RECALL_LIMIT, runHistories } from "../packages/memory/test/histories/run.js";

export async function runHistoriesBench(args: string[] = []): Promise<void> {
  const i = args.indexOf("--failures");
  const failures = i >= 0 ? Number(args[i + 1] ?? 20) : 0;
  const report = await runHistories((o) => createMemoryService(o));
  console.log(
    `H. labelled histories (packages/memory/test/histories, ${report.overall.n} histories, ${report.overall.questions} questions, recall limit ${RECALL_LIMIT}, ${report.seconds.toFixed(1)} s); targets ${HISTORY_TARGETS.overall.toFixed(2)} overall, ${HISTORY_TARGETS.perClass.toFixed(2)} per class`,
  );
  console.log("   a history is correct when every question is; scoring rules: packages/memory/test/histories/score.ts");
  console.log(formatReport(report, { failures, indent: "   " }));
}

export const run = runHistoriesBench;
