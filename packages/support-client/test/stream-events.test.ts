// StreamEvent mirrors the server's events (support-client cannot import @mountkit/support, it ships to
// browsers): `npm run typecheck` fails when the two drift apart; the run checks the server's frames narrow.
import { EVENT_TYPES, type EventDataMap, type EventType } from "@mountkit/support";
import type { StreamEvent } from "@mountkit/support-client";
import { describe, expect, expectTypeOf, it } from "vitest";

type DataOf<T extends StreamEvent["type"]> = Extract<StreamEvent, { type: T }>["data"];
type ServerFitsClient = { [K in EventType]: [EventDataMap[K]] extends [DataOf<K>] ? true : false };
type ClientFitsServer = { [K in EventType]: [DataOf<K>] extends [EventDataMap[K]] ? true : false };

describe("StreamEvent", () => {
  it("has exactly the server's event types, each with the data the server sends", () => {
    expectTypeOf<StreamEvent["type"]>().toEqualTypeOf<EventType>();
    expectTypeOf<ServerFitsClient>().toEqualTypeOf<{ [K in EventType]: true }>();
    expectTypeOf<ClientFitsServer>().toEqualTypeOf<{ [K in EventType]: true }>();
    expect([...EVENT_TYPES].sort()).toEqual(
      [
        "connected",
        "new_comment",
        "comment_edited",
        "comment_deleted",
        "state_update",
        "labels_changed",
        "assignee_changed",
        "issue_deleted",
        "resync",
      ].sort(),
    );
  });

  it("narrows by type: server-typed frames read back as JSON give typed data", () => {
    const at = new Date(0).toISOString();
    const newComment: EventDataMap["new_comment"] = { id: "m1", body: "hi", author: "agent", createdAt: at, isCustomer: false };
    const stateUpdate: EventDataMap["state_update"] = { state: "closed", status: "resolved" };
    const assignee: EventDataMap["assignee_changed"] = { assignee: null };
    const frames = [
      { type: "new_comment", data: newComment, createdAt: at },
      { type: "state_update", data: stateUpdate, createdAt: at },
      { type: "assignee_changed", data: assignee, createdAt: at },
    ].map((e) => JSON.parse(JSON.stringify(e)) as StreamEvent);
    const seen: string[] = [];
    for (const e of frames) {
      switch (e.type) {
        case "new_comment":
          expectTypeOf(e.data.isCustomer).toEqualTypeOf<boolean>();
          seen.push(`${e.data.author}:${e.data.body}`);
          break;
        case "state_update":
          expectTypeOf(e.data.state).toEqualTypeOf<"open" | "closed">();
          seen.push(`${e.data.state}/${e.data.status}`);
          break;
        case "assignee_changed":
          expectTypeOf(e.data.assignee).toEqualTypeOf<string | null>();
          seen.push(String(e.data.assignee));
          break;
        case "connected":
        case "resync":
          // @ts-expect-error these events carry no data
          e.data.id;
          break;
      }
    }
    expect(seen).toEqual(["agent:hi", "closed/resolved", "null"]);
  });
});
