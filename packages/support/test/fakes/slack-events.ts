// Events API deliveries for tests, typed against Slack's own event types (@slack/types): Slack publishes no
// package of example payloads, so every field its types require is filled and the compiler checks the shape.
import type { BotMessageEvent, GenericMessageEvent, MessageChangedEvent, MessageDeletedEvent, MessageEvent } from "@slack/types";

/** The outer `event_callback` envelope, with the fields Slack's Events API documentation lists. */
export interface EventCallback {
  token: string;
  team_id: string;
  api_app_id: string;
  event: MessageEvent;
  type: "event_callback";
  event_id: string;
  event_time: number;
  event_context: string;
  is_ext_shared_channel: boolean;
  authorizations: Array<{
    enterprise_id: string | null;
    team_id: string;
    user_id: string;
    is_bot: boolean;
    is_enterprise_install: boolean;
  }>;
}

export function slackEvents(channel: string, botUserId: string) {
  const common = { type: "message" as const, channel, channel_type: "channel" as const };
  return {
    /** A person's (or, with `bot_id`, an app's) plain message. */
    message(f: { user: string; text: string; ts: string; thread_ts?: string; bot_id?: string }): GenericMessageEvent {
      return { ...common, subtype: undefined, event_ts: f.ts, ...f };
    },
    botMessage(f: { bot_id: string; text: string; ts: string; thread_ts?: string }): BotMessageEvent {
      return { ...common, subtype: "bot_message", event_ts: f.ts, ...f };
    },
    changed(message: MessageEvent, previous: MessageEvent, at: string): MessageChangedEvent {
      return { ...common, subtype: "message_changed", hidden: true, ts: at, event_ts: at, message, previous_message: previous };
    },
    deleted(previous: MessageEvent & { ts: string }, at: string): MessageDeletedEvent {
      return {
        ...common,
        subtype: "message_deleted",
        hidden: true,
        ts: at,
        event_ts: at,
        deleted_ts: previous.ts,
        previous_message: previous,
      };
    },
    callback(event: MessageEvent, eventId: string): EventCallback {
      return {
        token: "verification-token-unused",
        team_id: "T0SUPPORT",
        api_app_id: "A0KIT",
        event,
        type: "event_callback",
        event_id: eventId,
        event_time: Math.floor(Date.now() / 1000),
        event_context: `4-${eventId}`,
        is_ext_shared_channel: false,
        authorizations: [{ enterprise_id: null, team_id: "T0SUPPORT", user_id: botUserId, is_bot: true, is_enterprise_install: false }],
      };
    },
  };
}
