// What the agent desk's routes share (routes/agent.ts builds it): the context, the guard, and the backend check.
import type { Middleware } from "@mountkit/core";
import type { SupportContext } from "../http/context.js";

export interface DeskCx {
  cx: SupportContext;
  common: { tags: string[]; security: string[]; use: Middleware[] };
  /** Throws 501 for a conversation its backend works on (GitHub, Slack, a remote SPI): its notes live there. */
  onThisSide(id: string): Promise<void>;
}
