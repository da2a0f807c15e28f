// Error plumbing shared by the SQL stores.

/** Thrown inside a transaction to roll it back and answer `value` instead. */
export class Rollback<T = unknown> extends Error {
  constructor(readonly value: T) {
    super("rollback");
  }
}

/** A unique or primary-key violation, from either driver. */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
