// What the bot posts quotes untrusted text (issue and PR titles, test output, CI logs):
// an `@user` or `@org/team` in it must not notify anyone in the bot's name. Outside code
// (where GitHub does not notify anyway, and where a patch must stay byte-exact) a
// zero-width space goes after the `@`.
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const MENTION = /(^|[^\w`@\u200b])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\/[A-Za-z0-9_.-]+)?)/g;

export function neutralizeMentions(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const opening = FENCE.exec(line)?.[1];
      if (fence) {
        if (opening && opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening)
          fence = undefined;
        return line;
      }
      if (opening) {
        fence = opening;
        return line;
      }
      // Inline code spans stay as they are.
      return line
        .split(/(`+[^`]*`+)/)
        .map((part, i) => (i % 2 === 1 ? part : part.replace(MENTION, "$1@\u200b$2")))
        .join("");
    })
    .join("\n");
}
