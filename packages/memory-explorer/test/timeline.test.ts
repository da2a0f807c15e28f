// The sliders' stops: every start and end on one axis, a stop before them all, now last; and which stop
// shows a given instant.
import { describe, expect, it } from "vitest";
import type { Edge } from "../src/client.js";
import { stopIndex, stops } from "../src/timeline.js";

const edge = (over: Partial<Edge>): Edge => ({
  id: "e",
  source: "a",
  target: "b",
  relation: "works_at",
  fact: "f",
  tValid: null,
  tInvalid: null,
  tIngested: "2024-07-01T00:00:00.000Z",
  tExpired: null,
  episodeId: "ep",
  invalidationReason: null,
  ...over,
});
const t = (s: string) => Date.parse(s);
const NOW = t("2025-01-01T00:00:00Z");

describe("stops", () => {
  const history = [
    edge({ tValid: "2024-01-10T00:00:00.000Z", tInvalid: "2024-06-01T00:00:00.000Z" }),
    edge({ tValid: "2024-06-01T00:00:00.000Z", tExpired: "2024-08-01T00:00:00.000Z" }),
    // an end after now is no stop: the now stop already shows the fact valid
    edge({ tValid: null, tInvalid: "2030-01-01T00:00:00.000Z" }),
  ];

  it("valid time: the starts and ends of validity, once each, a stop before them, now last", () => {
    expect(stops(history, "valid", NOW)).toEqual([
      t("2024-01-10T00:00:00Z") - 1,
      t("2024-01-10T00:00:00Z"),
      t("2024-06-01T00:00:00Z"),
      NOW,
    ]);
  });

  it("transaction time: ingestion and expiry", () => {
    expect(stops(history, "known", NOW)).toEqual([
      t("2024-07-01T00:00:00Z") - 1,
      t("2024-07-01T00:00:00Z"),
      t("2024-08-01T00:00:00Z"),
      NOW,
    ]);
  });

  it("an empty brain has one stop: now", () => {
    expect(stops([], "valid", NOW)).toEqual([NOW]);
  });

  it("stopIndex finds the stop showing an instant (the last at or before it)", () => {
    const list = stops(history, "valid", NOW);
    expect(stopIndex(list, t("2023-01-01T00:00:00Z"))).toBe(0);
    expect(stopIndex(list, t("2024-05-31T23:59:59Z"))).toBe(1);
    expect(stopIndex(list, t("2024-06-01T00:00:00Z"))).toBe(2);
    expect(stopIndex(list, NOW + 1)).toBe(3);
  });
});
