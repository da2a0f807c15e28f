// What the agent changes on the open conversation: labels, assignee, status (resolve, close, reopen) and the reply
// form (a reply to the customer, or a private note for other agents; canned replies inserted with `/`). Each write
// shows its failure next to the controls and is announced when it lands.
import { h } from "@mountkit/core/dom";
import { type AgentApi, AgentApiError, type AgentDetail, type AgentNote, type Status } from "../api.js";
import { agentLabels, badge, controlId, field, onSubmit, STATUS_TEXT, TOKEN_REFUSED } from "../dom.js";
import { AssigneeControl, assigneeName } from "./assignee.js";
import { filesOnlyText, ReplyFiles } from "./attach.js";
import { CannedReplies } from "./canned.js";
import type { InboxContext } from "./context.js";

export interface ComposerHooks {
  /** The open conversation (undefined once it is gone or another is loading). */
  current(): AgentDetail | undefined;
  /** Its status, labels or assignee changed: the list's row follows. */
  changed(c: AgentDetail): void;
  /** Shows the open conversation's status, labels and assignee again (on the thread as now rendered). */
  refresh(force?: boolean): void;
  /** A private note was added to the open conversation. */
  noted(note: AgentNote): void;
}

/** The controls of one rendered thread; `meta(force)` shows the open conversation's status, labels and assignee. */
export class Composer {
  /** Status badge, customer and assignee. */
  readonly head = h("div", { class: "row" });
  readonly status = h("div", { class: "row", role: "group", "aria-label": "Change status" });
  readonly error = h("p", { class: "error", role: "alert" });
  readonly controls: HTMLElement;
  readonly replyForm: HTMLFormElement;
  readonly #cx: InboxContext;
  readonly #hooks: ComposerHooks;
  readonly #labels = h("input", { type: "text", name: "labels", maxlength: "2000" });
  readonly #assignee: AssigneeControl;
  readonly #reply = h("textarea", { name: "reply", rows: "3", maxlength: "20000" });
  readonly #send = h("button", { class: "primary", type: "submit" }, "Send reply");
  readonly #note = h("button", { class: "note", type: "button", title: "Only agents see private notes" }, "Add private note");
  /** The files the next reply carries. */
  readonly #files: ReplyFiles;

  constructor(cx: InboxContext, hooks: ComposerHooks) {
    this.#cx = cx;
    this.#hooks = hooks;
    const labels = this.#labels;
    this.#assignee = new AssigneeControl(cx, (assignee) => void this.#saveAssignee(assignee));
    this.#reply.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        (this.#reply.form as HTMLFormElement | null)?.requestSubmit();
      }
    });
    this.controls = h(
      "div",
      { class: "controls" },
      h(
        "form",
        { class: "field", onsubmit: onSubmit(() => void this.#saveLabels()) },
        h("label", { for: (labels.id = controlId()) }, "Labels (comma-separated)"),
        h("div", { class: "inline" }, labels, h("button", { type: "submit" }, "Save labels")),
      ),
      this.#assignee.element,
    );
    const canned = new CannedReplies(cx, this.#reply);
    const files = (this.#files = new ReplyFiles(cx));
    this.#note.addEventListener("click", () => void this.#addNote());
    this.replyForm = h(
      "form",
      { class: "reply", onsubmit: onSubmit(() => void this.#sendReply()) },
      h(
        "div",
        { class: "field" },
        field("Reply", this.#reply, "field"),
        canned.suggestions,
        h("div", { class: "inline" }, canned.hint, canned.picker),
        files.chips,
        files.error,
      ),
      h("div", { class: "actions" }, this.#send, this.#note, files.button, files.input),
    );
    files.listen(this.#reply, this.replyForm);
  }

  /** The thread goes: uploads still running stop. */
  dispose() {
    this.#files.dispose();
  }

  /** Status, labels and assignee of the open conversation; inputs being edited keep what is typed unless `force`. */
  meta(force = false) {
    const c = this.#hooks.current();
    if (!c) return;
    this.head.replaceChildren(
      badge(c.status),
      h("span", { class: "muted" }, `Customer ${c.customerId}`),
      h("span", { class: "muted" }, this.#assignee.text(c)),
    );
    const active = this.#cx.root.activeElement;
    if (force || active !== this.#labels) this.#labels.value = agentLabels(c.labels).join(", ");
    this.#assignee.show(c, force);
    const action = (text: string, to: Status) => h("button", { type: "button", onclick: () => void this.#saveStatus(to, text) }, text);
    const closed = c.status === "closed" || c.status === "resolved";
    this.status.replaceChildren(
      ...(closed ? [action("Reopen", "waiting-for-agent")] : [action("Resolve", "resolved")]),
      ...(c.status === "closed" ? [] : [action("Close", "closed")]),
    );
    this.#reply.disabled = this.#send.disabled = c.status === "closed";
    this.#files.disabled = c.status === "closed";
    this.#reply.placeholder = c.status === "closed" ? "Closed: reopen it to reply." : "";
    this.#hooks.changed(c);
  }

  /** Runs a write on the open conversation and shows its failure next to the controls. */
  async #write(run: (api: AgentApi, id: string) => Promise<void>, done: string) {
    const c = this.#hooks.current();
    if (!c) return;
    this.error.textContent = "";
    try {
      await run(this.#cx.api, c.id);
      this.#cx.announce(done);
    } catch (e) {
      if (e instanceof AgentApiError && e.status === 401) return this.#cx.signOut(TOKEN_REFUSED);
      this.error.textContent = e instanceof AgentApiError ? `Not saved: ${e.message}` : "Not saved: the service could not be reached.";
    }
  }

  #sendReply() {
    if (this.#files.busy) {
      this.#files.error.textContent = "Wait for the files to finish uploading.";
      return;
    }
    const files = this.#files.files;
    const text = this.#reply.value.trim() || (files.length ? filesOnlyText(files) : "");
    if (!text) return;
    this.#send.disabled = true;
    return this.#write(async (api, id) => {
      try {
        await api.reply(
          id,
          text,
          this.#cx.author,
          files.map((f) => f.id),
        );
        this.#reply.value = "";
        this.#files.clear();
      } finally {
        this.#send.disabled = this.#hooks.current()?.status === "closed";
      }
    }, "Reply sent.");
  }

  #addNote() {
    const text = this.#reply.value.trim();
    if (!text) return;
    this.#note.disabled = true;
    return this.#write(async (api, id) => {
      try {
        const note = await api.addNote(id, text, this.#cx.author);
        this.#reply.value = "";
        if (this.#hooks.current()?.id === id) this.#hooks.noted(note);
      } finally {
        this.#note.disabled = false;
      }
    }, "Private note added.");
  }

  #saveLabels() {
    const labels = [
      ...new Set(
        this.#labels.value
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    return this.#write(async (api, id) => {
      const saved = await api.setLabels(id, labels);
      const c = this.#hooks.current();
      if (c?.id === id) {
        c.labels = saved;
        this.#hooks.refresh(true);
      }
    }, "Labels saved.");
  }

  #saveAssignee(assignee: string | null) {
    return this.#write(
      async (api, id) => {
        await api.setAssignee(id, assignee);
        const c = this.#hooks.current();
        if (c?.id === id) {
          c.assignee = assignee;
          this.#hooks.refresh(true);
        }
      },
      assignee ? `Assigned to ${assigneeName(this.#cx, assignee, this.#hooks.current())}.` : "Unassigned.",
    );
  }

  #saveStatus(status: Status, verb: string) {
    return this.#write(async (api, id) => {
      await api.setStatus(id, status);
      const c = this.#hooks.current();
      if (c?.id === id) {
        c.status = status;
        this.#hooks.refresh();
      }
    }, `${verb}: ${STATUS_TEXT[status]}.`);
  }
}
