// Status machine, default subject, constant-time compare and the agent cursor.
import { constantTimeEqual } from "@mountkit/core";
import { describe, expect, it } from "vitest";
import { decodeConversationCursor as decodeCursor, encodeConversationCursor as encodeCursor } from "../src/domain/cursor.js";
import {
  isOpen,
  onAgentReply,
  onClose,
  onCustomerMessage,
  STATUSES,
  stateOf,
  statusChangeEffects,
  wireLabels,
} from "../src/domain/status.js";
import { defaultSubject, FALLBACK_SUBJECT } from "../src/domain/subject.js";
import { CUSTOMER_ID } from "../src/routes/schemas.js";

describe("status machine", () => {
  it("maps statuses to isOpen and state", () => {
    expect(STATUSES.filter(isOpen)).toEqual(["new", "waiting-for-agent", "waiting-for-customer"]);
    expect(stateOf("resolved")).toBe("closed");
    expect(stateOf("closed")).toBe("closed");
    expect(stateOf("new")).toBe("open");
  });

  it("customer message: open -> waiting-for-agent, resolved reopens, closed refuses", () => {
    for (const s of ["new", "waiting-for-agent", "waiting-for-customer", "resolved"] as const)
      expect(onCustomerMessage(s)).toEqual({ ok: true, next: "waiting-for-agent" });
    expect(onCustomerMessage("closed")).toEqual({ ok: false, reason: "closed" });
  });

  it("agent reply: open -> waiting-for-customer; resolved and closed stay", () => {
    for (const s of ["new", "waiting-for-agent", "waiting-for-customer"] as const)
      expect(onAgentReply(s)).toEqual({ ok: true, next: "waiting-for-customer" });
    expect(onAgentReply("resolved")).toEqual({ ok: true, next: "resolved" });
    expect(onAgentReply("closed")).toEqual({ ok: true, next: "closed" });
  });

  it("close: open -> resolved/closed; already closed is idempotent", () => {
    expect(onClose("new", "resolve")).toEqual({ ok: true, next: "resolved" });
    expect(onClose("waiting-for-agent", "close")).toEqual({ ok: true, next: "closed" });
    expect(onClose("resolved", "close")).toEqual({ ok: true, next: "resolved" });
    expect(onClose("closed", "resolve")).toEqual({ ok: true, next: "closed" });
  });

  it("effects of a change and the wire labels", () => {
    expect(statusChangeEffects("resolved", "waiting-for-agent")).toEqual({ stateFlipped: true, labelsChanged: true });
    expect(statusChangeEffects("new", "waiting-for-agent")).toEqual({ stateFlipped: false, labelsChanged: true });
    expect(statusChangeEffects("closed", "closed")).toEqual({ stateFlipped: false, labelsChanged: false });
    expect(wireLabels("new", ["bug", "new"])).toEqual(["new", "bug"]);
  });
});

describe("default subject", () => {
  it("is the first non-blank line cut to 80 characters", () => {
    expect(defaultSubject("Hello\nworld")).toBe("Hello");
    expect(defaultSubject("\n   \n  Title  \nrest")).toBe("Title");
    expect(defaultSubject("x".repeat(100))).toBe("x".repeat(80));
    expect(defaultSubject("   ")).toBe(FALLBACK_SUBJECT);
    expect(Array.from(defaultSubject("😀".repeat(90)))).toHaveLength(80);
  });
});

describe("helpers", () => {
  it("compares tokens", () => {
    expect(constantTimeEqual("secret", "secret")).toBe(true);
    expect(constantTimeEqual("secreT", "secret")).toBe(false);
    expect(constantTimeEqual("secret2", "secret")).toBe(false);
    expect(constantTimeEqual("", "secret")).toBe(false);
    expect(constantTimeEqual("secre", "secret")).toBe(false);
  });

  it("round-trips cursors and refuses garbage", () => {
    const pos = { updatedAt: "2030-01-01T00:00:00.000Z", id: "conv_x" };
    expect(decodeCursor(encodeCursor(pos))).toEqual(pos);
    expect(() => decodeCursor("!!!")).toThrow(/invalid cursor/);
    expect(() => decodeCursor(btoa("[1,2]"))).toThrow(/invalid cursor/);
    // positions a store would choke on never get past the decoder
    expect(() => decodeCursor(encodeCursor({ updatedAt: "2030-01-01T00:00:00.000Z", id: "conv\u0000x" }))).toThrow(/invalid cursor/);
    expect(() => decodeCursor(encodeCursor({ updatedAt: "not a date", id: "conv_x" }))).toThrow(/invalid cursor/);
    expect(() => decodeCursor(encodeCursor({ updatedAt: "2030-01-01T00:00:00.000Z", id: "" }))).toThrow(/invalid cursor/);
  });

  it("accepts only cust_<UUID>", () => {
    expect(CUSTOMER_ID.test(`cust_${crypto.randomUUID()}`)).toBe(true);
    expect(CUSTOMER_ID.test("cust_123")).toBe(false);
    expect(CUSTOMER_ID.test(crypto.randomUUID())).toBe(false);
    expect(CUSTOMER_ID.test(`cust_${crypto.randomUUID()}x`)).toBe(false);
    expect(CUSTOMER_ID.test("user@example.com")).toBe(false);
  });
});
