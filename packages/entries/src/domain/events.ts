// The entries' outbound events: `entry.created`, `entry.updated` and `entry.deleted`, in the scope of the entry's
// owner, about `<typeId>/<id>`, carrying the entry as the API answers it. A change writes its event's job in its own
// transaction, and only when the owner has a subscription taking that type.
import type { Clock } from "@mountkit/core";
import type { NewJob } from "@mountkit/core/jobs";
import { eventJob, type WebhookDispatcher, webhookEvent } from "@mountkit/core/webhooks";
import type { Entry } from "../store/types.js";

export const ENTRY_EVENTS = ["entry.created", "entry.updated", "entry.deleted"] as const;
export type EntryEventType = (typeof ENTRY_EVENTS)[number];

/** The webhook scope of an owner's entries. */
export const ownerScope = (ownerId: string) => `entries:owner:${ownerId}`;

export interface EntryEvents {
  /** The jobs of an event about `entry`, or none when its owner has no subscription taking `type`. */
  prepare(type: EntryEventType, ownerId: string): Promise<((entry: Entry) => NewJob[]) | undefined>;
  /** Tells the dispatcher a change with events was committed. */
  committed(): void;
}

export function entryEvents(hooks: WebhookDispatcher, clock: Clock): EntryEvents {
  return {
    async prepare(type, ownerId) {
      const scope = ownerScope(ownerId);
      if (!(await hooks.store.matchingSubscriptions(scope, type)).length) return undefined;
      return (entry) => [
        eventJob("entries", webhookEvent({ type, scope, subject: `${entry.typeId}/${entry.id}`, data: entry, now: clock.now() })),
      ];
    },
    committed: () => hooks.wake(),
  };
}
