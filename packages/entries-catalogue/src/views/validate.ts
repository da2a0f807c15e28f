// `#/validate`: the validation address as a page. Paste a document or give a URL; the answer lists errors,
// warnings and notices at their JSON pointer paths, with the line and column when the validator gives them
// and, for a pasted document, the text found there.
import { ApiError, type Issue, type ValidationAnswer } from "../api.js";
import { fmtNumber, h } from "../dom.js";
import type { ViewContext } from "./context.js";

/** The value at a JSON pointer (RFC 6901) of a parsed document, or undefined. */
export function atPointer(doc: unknown, pointer: string): unknown {
  if (pointer === "") return doc;
  if (!pointer.startsWith("/")) return undefined;
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (cur && typeof cur === "object" && Object.hasOwn(cur, key)) cur = (cur as Record<string, unknown>)[key];
    else return undefined;
  }
  return cur;
}

/** What the pasted text holds where the issue points: its lines around `line`, or the JSON value at the pointer. */
function excerpt(issue: Issue, text: string | undefined, parsed: unknown): HTMLElement | null {
  if (text === undefined) return null;
  if (typeof issue.line === "number" && issue.line >= 1) {
    const lines = text.split(/\r?\n/);
    const from = Math.max(1, issue.line - 1);
    const to = Math.min(lines.length, issue.line + 1);
    if (issue.line > lines.length) return null;
    const pre = h("pre", { class: "excerpt", "aria-label": `Lines ${from} to ${to}` });
    for (let n = from; n <= to; n++) {
      const content = `${String(n).padStart(5)}  ${lines[n - 1] ?? ""}\n`;
      pre.append(n === issue.line ? h("mark", {}, content) : content);
    }
    return pre;
  }
  if (parsed === undefined) return null;
  const value = atPointer(parsed, issue.path);
  if (value === undefined || issue.path === "") return null;
  const shown = JSON.stringify(value, null, 2).split("\n");
  const cut = shown.length > 12 ? [...shown.slice(0, 12), "  …"] : shown;
  return h("pre", { class: "excerpt", "aria-label": "The value at this path" }, cut.join("\n"));
}

function issueList(kind: "error" | "warning" | "notice" | "lint", issues: Issue[], text: string | undefined, parsed: unknown): HTMLElement {
  return h(
    "ol",
    { class: `issues issue-${kind}` },
    issues.map((i) =>
      h(
        "li",
        {},
        h(
          "div",
          {},
          h("code", { class: "pointer", title: "JSON pointer" }, i.path === "" ? "(document)" : i.path),
          typeof i.line === "number"
            ? h("span", { class: "pos" }, typeof i.column === "number" ? `line ${i.line}, column ${i.column}` : `line ${i.line}`)
            : null,
        ),
        h("p", { class: "message" }, i.message),
        excerpt(i, text, parsed),
      ),
    ),
  );
}

type Lint = NonNullable<Extract<ValidationAnswer, { valid: true }>["lint"]>;

/** The deployment's lint findings (issue #28): severity, rule and message at their path and line, like the warnings. */
function lintView(lint: Lint, text: string | undefined, parsed: unknown): Array<HTMLElement | null> {
  const title = `Lint, ruleset ${lint.ruleset}`;
  if (lint.failed) return [h("h4", {}, title), h("p", { class: "muted" }, `Not linted: ${lint.failed}`)];
  const { error, warning, info, hint } = lint.counts;
  const counts = `${fmtNumber(error)} errors, ${fmtNumber(warning)} warnings, ${fmtNumber(info)} info, ${fmtNumber(hint)} hints`;
  const shown = lint.resultCount > lint.results.length ? `, ${fmtNumber(lint.results.length)} shown` : "";
  const issues = lint.results.map((r) => ({ ...r, message: `${r.severity} · ${r.rule}: ${r.message}` }));
  return [
    h("h4", {}, lint.resultCount === 0 ? `${title}: no findings` : `${title} (${counts}${shown})`),
    issues.length ? issueList("lint", issues, text, parsed) : null,
  ];
}

function answerView(a: ValidationAnswer, text: string | undefined): HTMLElement {
  let parsed: unknown;
  if (text !== undefined && /^\s*[{[]/.test(text)) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!a.valid)
    return h(
      "div",
      { class: "box bad" },
      h("h3", { id: "result-title", tabindex: "-1" }, "Not valid: this document cannot be catalogued"),
      h("h4", {}, `Errors (${fmtNumber(a.errors.length)})`),
      issueList("error", a.errors, text, parsed),
    );
  const warnings = a.warnings ?? [];
  const total = a.warningCount ?? warnings.length;
  return h(
    "div",
    { class: "box ok" },
    h("h3", { id: "result-title", tabindex: "-1" }, "Valid: this document can be catalogued"),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Title"),
      h("dd", {}, a.title || "(empty)"),
      h("dt", {}, "API version"),
      h("dd", {}, a.version),
      h("dt", {}, "Specification"),
      h("dd", {}, a.openapi.startsWith("2") ? `Swagger ${a.openapi}` : `OpenAPI ${a.openapi}`),
      h("dt", {}, "Endpoints"),
      h("dd", {}, fmtNumber(a.endpoints)),
      typeof a.paths === "number" ? [h("dt", {}, "Paths"), h("dd", {}, fmtNumber(a.paths))] : null,
    ),
    h(
      "h4",
      {},
      total === 0
        ? "No warnings"
        : `Warnings (${total > warnings.length ? `${fmtNumber(warnings.length)} shown of ${fmtNumber(total)}` : fmtNumber(total)})`,
    ),
    warnings.length ? issueList("warning", warnings, text, parsed) : null,
    a.notices?.length ? [h("h4", {}, `Notices (${fmtNumber(a.notices.length)})`), issueList("notice", a.notices, text, parsed)] : null,
    a.lint ? lintView(a.lint, text, parsed) : null,
  );
}

export async function validateView(ctx: ViewContext): Promise<Node> {
  const result = h("div", { class: "result" });
  let running: AbortController | undefined;

  const run = async (input: { document: string } | { url: string }, button: HTMLButtonElement) => {
    running?.abort();
    const controller = new AbortController();
    running = controller;
    ctx.signal.addEventListener("abort", () => controller.abort(), { once: true });
    button.disabled = true;
    result.replaceChildren(h("p", { class: "muted" }, "Validating…"));
    ctx.announce("Validating");
    try {
      const answer = await ctx.api.validate(input, controller.signal);
      result.replaceChildren(answerView(answer, "document" in input ? input.document : undefined));
      const warnings = answer.valid ? (answer.warningCount ?? answer.warnings?.length ?? 0) : 0;
      ctx.announce(answer.valid ? `Valid, ${warnings} warnings` : `Not valid, ${answer.errors.length} errors`);
      result.querySelector<HTMLElement>("#result-title")?.focus();
    } catch (e) {
      if (controller.signal.aborted) return;
      const message = e instanceof ApiError ? `${e.message} (${e.status})` : e instanceof Error ? e.message : String(e);
      result.replaceChildren(h("p", { class: "alert", role: "alert" }, `The validation address answered with an error: ${message}`));
    } finally {
      button.disabled = false;
    }
  };

  const textarea = h("textarea", { name: "document", spellcheck: "false", autocomplete: "off", required: true });
  const pasteButton = h("button", { type: "submit" }, "Validate document");
  const pasteForm = h(
    "form",
    { "aria-labelledby": "paste-title" },
    h("h3", { id: "paste-title" }, "Paste a document"),
    h("label", {}, "OpenAPI document (JSON or YAML)", textarea),
    pasteButton,
  );
  pasteForm.addEventListener("submit", (e) => {
    e.preventDefault();
    void run({ document: textarea.value }, pasteButton);
  });

  const url = h("input", {
    type: "url",
    name: "url",
    required: true,
    autocomplete: "off",
    placeholder: "https://example.com/openapi.json",
  });
  const urlButton = h("button", { type: "submit" }, "Validate URL");
  const urlForm = h(
    "form",
    { "aria-labelledby": "url-title" },
    h("h3", { id: "url-title" }, "Or give its address"),
    h("label", {}, "Document URL", url),
    h("p", { class: "muted" }, "The server fetches it (public addresses only, size and time capped)."),
    urlButton,
  );
  urlForm.addEventListener("submit", (e) => {
    e.preventDefault();
    void run({ url: url.value.trim() }, urlButton);
  });

  return h(
    "section",
    { "aria-labelledby": "view-title" },
    h("h2", { id: "view-title", tabindex: "-1" }, "Validate an OpenAPI document"),
    h(
      "p",
      { class: "muted" },
      "Swagger 2.0, OpenAPI 3.0 and 3.1. Errors keep a document out of the catalogue; warnings and notices do not. Each is shown at its JSON pointer.",
    ),
    h("div", { class: "validate-forms" }, pasteForm, urlForm),
    h("section", { "aria-label": "Result" }, result),
  );
}
