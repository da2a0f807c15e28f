// The operations table's model: filtering by words and method, sorting every column both ways, missing
// values last, ties broken so the input order never shows, and the state kept in the address.
import { describe, expect, it } from "vitest";
import type { Operation } from "../src/api.js";
import { applyTable, DEFAULT_STATE, methodsOf, stateFromQuery, stateToQuery } from "../src/operations.js";

const ops: Operation[] = [
  { method: "post", path: "/repos/{owner}/{repo}/pulls", operationId: "pulls/create", summary: "Create a pull request" },
  { method: "GET", path: "/repos/{owner}/{repo}/pulls", operationId: "pulls/list", summary: "List pull requests" },
  { method: "DELETE", path: "/repos/{owner}/{repo}", operationId: "repos/delete" },
  { method: "GET", path: "/users/{username}", summary: "Get a user" },
  { method: "GET", path: "/repos/{owner}/{repo}/issues/10" },
  { method: "GET", path: "/repos/{owner}/{repo}/issues/9" },
  { method: "PATCH", path: "/users/{username}", operationId: "users/update" },
];
const shuffled = [...ops].reverse();
const keys = (list: Operation[]) => list.map((o) => `${o.method.toUpperCase()} ${o.path}`);

describe("applyTable", () => {
  it("sorts by path with numbers in numeric order, then by method in path-item order", () => {
    const sorted = keys(applyTable(ops, DEFAULT_STATE));
    expect(sorted).toEqual([
      "DELETE /repos/{owner}/{repo}",
      "GET /repos/{owner}/{repo}/issues/9",
      "GET /repos/{owner}/{repo}/issues/10",
      "GET /repos/{owner}/{repo}/pulls",
      "POST /repos/{owner}/{repo}/pulls",
      "GET /users/{username}",
      "PATCH /users/{username}",
    ]);
    expect(keys(applyTable(shuffled, DEFAULT_STATE))).toEqual(sorted);
    expect(keys(applyTable(ops, { ...DEFAULT_STATE, dir: "desc" }))[0]).toBe("GET /users/{username}");
  });

  it("keeps operations without the sorted field last in both directions", () => {
    for (const dir of ["asc", "desc"] as const) {
      const sorted = applyTable(ops, { ...DEFAULT_STATE, sort: "operationId", dir });
      const withId = sorted.filter((o) => o.operationId).map((o) => o.operationId);
      expect(sorted.slice(0, withId.length).every((o) => o.operationId)).toBe(true);
      expect(withId).toEqual(
        dir === "asc"
          ? ["pulls/create", "pulls/list", "repos/delete", "users/update"]
          : ["users/update", "repos/delete", "pulls/list", "pulls/create"],
      );
    }
  });

  it("sorts methods in the order a path item lists them", () => {
    expect(applyTable(ops, { ...DEFAULT_STATE, sort: "method" }).map((o) => o.method.toUpperCase())).toEqual([
      "GET",
      "GET",
      "GET",
      "GET",
      "POST",
      "DELETE",
      "PATCH",
    ]);
    expect(methodsOf(shuffled)).toEqual(["GET", "POST", "DELETE", "PATCH"]);
  });

  it("filters by every word across path, operationId and summary, and by method whatever its case", () => {
    expect(keys(applyTable(ops, { ...DEFAULT_STATE, filter: "PULL request" }))).toEqual([
      "GET /repos/{owner}/{repo}/pulls",
      "POST /repos/{owner}/{repo}/pulls",
    ]);
    expect(keys(applyTable(ops, { ...DEFAULT_STATE, filter: "pulls", method: "post" }))).toEqual(["POST /repos/{owner}/{repo}/pulls"]);
    expect(applyTable(ops, { ...DEFAULT_STATE, filter: "nothing here" })).toEqual([]);
    expect(applyTable(ops, { ...DEFAULT_STATE, filter: "   " })).toHaveLength(ops.length);
  });

  it("does not change the list it is given", () => {
    const copy = structuredClone(ops);
    applyTable(ops, { ...DEFAULT_STATE, sort: "summary", dir: "desc" });
    expect(ops).toEqual(copy);
  });
});

describe("table state in the address", () => {
  it("round-trips, leaves defaults out and ignores unknown values", () => {
    const state = { filter: "pulls", method: "POST", sort: "operationId" as const, dir: "desc" as const };
    const q = new URLSearchParams(Object.entries(stateToQuery(state)).filter((e): e is [string, string] => e[1] !== undefined));
    expect(stateFromQuery(q)).toEqual(state);
    expect(stateToQuery(DEFAULT_STATE)).toEqual({ filter: undefined, method: undefined, sort: undefined, dir: undefined });
    expect(stateFromQuery(new URLSearchParams("sort=evil&dir=sideways&method=get"))).toEqual({ ...DEFAULT_STATE, method: "GET" });
  });
});
