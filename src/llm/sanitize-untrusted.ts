// Text from outside (issue bodies, comments, logs, file contents) before it enters a
// prompt: hidden content removed (HTML comments, zero-width and bidi control characters,
// hidden HTML and markdown comments), and our block delimiters neutralised so the text
// cannot close its block and speak as the prompt.
const HTML_COMMENT = /<!--[\s\S]*?(-->|$)/g;
const INVISIBLE = /[\u200B-\u200D\u2060-\u2064\uFEFF\u00AD\u180E]|\u034F/g;
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
const TAGS = /[\u{E0000}-\u{E007F}]/gu;
const HIDDEN_HTML = /<(\w+)[^>]*(\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden)[^>]*>[\s\S]*?<\/\1\s*>/gi;
const MARKDOWN_COMMENT = /^\s*\[(\/\/|comment|#)\]:\s*(#|<>)\s*(\(.*\)|".*"|'.*')\s*$/gim;
const DELIMITER = /<\/?\s*untrusted\b[^>]*>/gi;

export function sanitizeUntrusted(text: string): string {
  return text
    .replace(HTML_COMMENT, "")
    .replace(HIDDEN_HTML, "")
    .replace(MARKDOWN_COMMENT, "")
    .replace(INVISIBLE, "")
    .replace(BIDI, "")
    .replace(TAGS, "")
    .replace(DELIMITER, (m) => m.replace("<", "&lt;"))
    .replace(/\r\n?/g, "\n");
}

/** Untrusted text in its own clearly delimited block. */
export function untrustedBlock(name: string, text: string): string {
  return `<untrusted name="${name}">\n${sanitizeUntrusted(text)}\n</untrusted>`;
}
