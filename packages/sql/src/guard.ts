// Every query's bound values are checked before they reach the engine, so both engines refuse the same input
// the same way: PostgreSQL fails on a NUL in text and on a fraction or 1e20 bound to a BIGINT, SQLite stores them.
import { coreError, NUL_MESSAGE } from "@mountkit/core";
import type { CompiledQuery, DatabaseIntrospector, Dialect, DialectAdapter, Driver, Kysely, QueryCompiler } from "kysely";

/**
 * Throws a 400 KitError for a bound string holding NUL or a bound number that is not a safe integer.
 * Every numeric column of the kit's schema is an integer (epoch ms, counters, sequence numbers), so a
 * fraction, NaN or a value past 2^53 can only be input that escaped validation.
 */
export function checkParameters(query: CompiledQuery): CompiledQuery {
  const params = query.parameters;
  for (let i = 0; i < params.length; i++) {
    const v = params[i];
    if (typeof v === "string") {
      if (v.includes("\0"))
        throw coreError("invalid_request", { message: `invalid text: ${NUL_MESSAGE}`, details: [{ path: "", message: NUL_MESSAGE }] });
    } else if (typeof v === "number" && !Number.isSafeInteger(v)) {
      throw coreError("invalid_request", {
        message: `invalid number ${v}: not a safe integer`,
        details: [{ path: "", message: "not a safe integer" }],
      });
    }
  }
  return query;
}

/** A dialect whose compiler checks every query's parameters (see `checkParameters`). */
export class GuardedDialect implements Dialect {
  constructor(private readonly inner: Dialect) {}
  createDriver(): Driver {
    return this.inner.createDriver();
  }
  createQueryCompiler(): QueryCompiler {
    const compiler = this.inner.createQueryCompiler();
    return { compileQuery: (node, queryId) => checkParameters(compiler.compileQuery(node, queryId)) };
  }
  createAdapter(): DialectAdapter {
    return this.inner.createAdapter();
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return this.inner.createIntrospector(db);
  }
}
