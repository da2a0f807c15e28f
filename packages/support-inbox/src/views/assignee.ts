// Who a conversation is assigned to: the assignee field, "Assign to me" (the signed-in agent's id when the host's
// identity signed them in, their typed name with the shared token) and "Unassign", and the assignee's name as shown.
import { h } from "@mountkit/core/dom";
import { readMetadata } from "@mountkit/support-client";
import type { AgentDetail } from "../api.js";
import { controlId, onSubmit } from "../dom.js";
import type { InboxContext } from "./context.js";

/**
 * The name to show for `assignee` (an agent id, or a name the shared token assigned): the signed-in agent's name for
 * their own id, else the name the agent's replies in `c` carry, else the value itself.
 */
export function assigneeName(cx: Pick<InboxContext, "agent">, assignee: string, c?: Pick<AgentDetail, "messages">): string {
  if (cx.agent.id !== null && assignee === cx.agent.id) return cx.agent.name;
  // a reply read with the detail has `authorId`; one that came over the stream has the id in its hidden block
  const byThem = c?.messages.findLast((m) => !m.isCustomer && (m.authorId ?? readMetadata(m.body)?.agentId) === assignee);
  return byThem?.author ?? assignee;
}

/** What the signed-in agent writes into `assignee` when they take a conversation. */
export const myAssignee = (cx: Pick<InboxContext, "agent">) => cx.agent.id ?? cx.agent.name;

/** The assignee form of the open conversation; `save` writes the new assignee (null unassigns). */
export class AssigneeControl {
  readonly element: HTMLFormElement;
  readonly #cx: InboxContext;
  readonly #input = h("input", { type: "text", name: "assignee", maxlength: "200" });
  readonly #unassign: HTMLButtonElement;

  constructor(cx: InboxContext, save: (assignee: string | null) => void) {
    this.#cx = cx;
    const input = this.#input;
    this.#unassign = h("button", { type: "button", onclick: () => save(null) }, "Unassign");
    this.element = h(
      "form",
      { class: "field", onsubmit: onSubmit(() => save(input.value.trim() || null)) },
      h("label", { for: (input.id = controlId()) }, "Assignee"),
      h(
        "div",
        { class: "inline" },
        input,
        h("button", { type: "submit" }, "Assign"),
        h("button", { type: "button", onclick: () => save(myAssignee(cx)) }, "Assign to me"),
        this.#unassign,
      ),
    );
  }

  /** "Assigned to <name>" (with "(you)" for the signed-in agent) or "Unassigned", for the conversation's head. */
  text(c: AgentDetail): string {
    if (!c.assignee) return "Unassigned";
    const mine = c.assignee === myAssignee(this.#cx);
    return `Assigned to ${assigneeName(this.#cx, c.assignee, c)}${mine ? " (you)" : ""}`;
  }

  /** Shows `c`'s assignee; an input being edited keeps what is typed unless `force`. */
  show(c: AgentDetail, force: boolean) {
    if (force || this.#cx.root.activeElement !== this.#input) this.#input.value = c.assignee ?? "";
    this.#unassign.hidden = !c.assignee;
  }
}
