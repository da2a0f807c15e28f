// What the inbox's views share: status names and filters, a labelled field, dates, the status badge and the
// page's settings (the API base it was served with, the page size).
import { h } from "@mountkit/core/dom";
import { STATUSES, type Status } from "./api.js";

export const STATUS_TEXT: Record<Status, string> = {
  new: "New",
  "waiting-for-agent": "Waiting for agent",
  "waiting-for-customer": "Waiting for customer",
  resolved: "Resolved",
  closed: "Closed",
};
/** The status filter's choices: value is the API's comma-separated `status`. */
export const STATUS_FILTERS: Array<[string, string]> = [
  ["new,waiting-for-agent,waiting-for-customer", "All open"],
  ["new,waiting-for-agent", "Needs a reply"],
  ...STATUSES.map((s): [string, string] => [s, STATUS_TEXT[s]]),
  ["", "Any status"],
];
export const isStatus = (s: string): s is Status => (STATUSES as readonly string[]).includes(s);
/** The agent's own labels: the wire list without the status label. */
export const agentLabels = (labels: string[]) => labels.filter((l) => !isStatus(l));

/** What a view says when a call is refused for the token: it signs out with this message. */
export const TOKEN_REFUSED = "The token is no longer accepted. Sign in again.";

/** A form's submit handler: no navigation, just `run`. */
export const onSubmit = (run: () => unknown) => (e: Event) => {
  e.preventDefault();
  run();
};

let uid = 0;
/** A fresh id for a form control, so a label's `for` can point at it. */
export const controlId = () => `mk-f${++uid}`;

/** A labelled form control: the label's `for` points at the control. */
export function field(labelText: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, cls = "field") {
  control.id ||= controlId();
  return h("div", { class: cls }, h("label", { for: control.id }, labelText), control);
}

export const when = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
};
export const badge = (status: Status) => h("span", { class: `badge ${status}` }, STATUS_TEXT[status] ?? status);

/** Conversations per page: `?pageSize=` (1..200) on the page's URL, default 50. */
export function pageSize(): number {
  const n = Number(new URLSearchParams(location.search).get("pageSize"));
  return Number.isInteger(n) && n >= 1 && n <= 200 ? n : 50;
}

/** The API base the page was served with (`<meta name="mountkit-base">`), else the page's origin. */
export function apiBase(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="mountkit-base"]')?.content;
  return new URL(meta || "/", location.href).href.replace(/\/+$/, "");
}
