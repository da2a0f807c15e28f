// Playbook markdown to HTML with markdown-it, safely: raw HTML in stored content is escaped (html: false),
// and its link validator refuses javascript:, vbscript: and data: (except images) URLs.
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

export const renderMarkdown = (source: string): string => md.render(source);
