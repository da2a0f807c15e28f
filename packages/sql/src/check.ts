// A statement's expectation about its rows, checked where it runs: in the SQLite connection thread (so a transaction's
// checks, writes and COMMIT go in one message, and a failed check stops the message before its COMMIT), or after the
// statement where statements run one by one (PostgreSQL, a batch of one). A failed check throws CheckFailed; inside a
// transaction the caller's rollback undoes it.
import type { CompiledQuery } from "kysely";

/** What a checked statement must answer: at least one row (`some`) or none; `reason` names the failure. */
export interface Expectation {
  rows: "some" | "none";
  reason: string;
}

/** The code a connection thread answers for a failed check (its message is the reason). */
export const CHECK_FAILED = "MOUNTKIT_CHECK";

/** A checked statement whose answer was not the expected one. */
export class CheckFailed extends Error {
  constructor(readonly reason: string) {
    super(`check failed: ${reason}`);
  }
}

/** Whether `count` rows meet the expectation. */
export const meets = (e: Expectation, count: number) => (e.rows === "some" ? count > 0 : count === 0);

/** Marks a compiled query that carries an expectation (`expecting` in batch.ts). */
export const EXPECT = Symbol("mountkit.sql.expect");

/** A compiled query, perhaps with an expectation. */
export type CheckedQuery = CompiledQuery & { [EXPECT]?: Expectation };
