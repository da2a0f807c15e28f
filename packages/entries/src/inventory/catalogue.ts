// Catalogues a parsed spec: its version, endpoints ((path, method) pairs), paths, tags and operation list.
import type { ParsedSpec } from "../openapi/spec-types.js";
import type { InventoryInput, Operation } from "../store/types.js";

export type Inventory = InventoryInput;

/** HTTP methods an OpenAPI 2.0/3.x path item can carry, in the order operations are listed. */
export const OPERATION_METHODS = ["delete", "get", "head", "options", "patch", "post", "put", "trace"] as const;

/** `v<version>`, without doubling a leading `v` (`v1` stays `v1`). */
export function versionTag(version: string): string {
  return /^v\d/i.test(version) ? version : `v${version}`;
}

export function inventoryTags(version: string): string[] {
  return ["api", "openapi", versionTag(version)];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `paths`, or nothing: an OpenAPI 3.1 document may describe only webhooks or components. */
export const pathsOf = (document: Record<string, unknown>): Record<string, unknown> => (isObject(document.paths) ? document.paths : {});

/**
 * Lists operations sorted by path (code-unit order), then method: a stable order independent of how the
 * document was written. `pathItem` follows a path item's `$ref`; by default the item is read as is.
 */
export function catalogue(spec: ParsedSpec, pathItem: (key: string) => unknown = (k) => pathsOf(spec.document)[k]): Inventory {
  const paths = pathsOf(spec.document);
  const keys = Object.keys(paths)
    .filter((k) => k.startsWith("/"))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const operations: Operation[] = [];
  let pathCount = 0;
  for (const path of keys) {
    const item = pathItem(path);
    if (!isObject(item)) continue;
    let any = false;
    for (const method of OPERATION_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      any = true;
      const rec: Operation = { method: method.toUpperCase(), path };
      if (typeof op.operationId === "string" && op.operationId) rec.operationId = op.operationId;
      if (typeof op.summary === "string" && op.summary) rec.summary = op.summary;
      operations.push(rec);
    }
    if (any) pathCount++;
  }
  return {
    specVersion: spec.specVersion,
    title: spec.title,
    version: spec.version,
    endpoints: operations.length,
    paths: pathCount,
    tags: inventoryTags(spec.version),
    operations,
  };
}
