// Everything posted to GitHub or sent to the model passes through here first: the secrets
// this process holds, in every form secret-forms.ts knows (raw, base64 at any offset, hex,
// URL, JSON, reversed), also when wrapped over lines, written with \u escapes, or spread out
// with a separator between every character, and the shapes of well-known tokens are
// replaced with a marker. Every view is built in one pass and searched in one pass: linear.
import { isSecretVariable } from "./secret-names.ts";
import { joinedViews } from "./joined-lines.ts";
import { literalMatcher, type Range } from "./literal-matcher.ts";
import { secretForms } from "./secret-forms.ts";
import { spreadViews } from "./spread-views.ts";

const TOKEN_SHAPES = [
  /\bgh[pousr]_[A-Za-z0-9]{20,255}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g,
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}\b/g,
  // The body stops at the first "-----" (unrolled, no lazy scan to the end of the text), so a
  // log full of unclosed BEGIN lines cannot make this quadratic.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[^-]*(?:-(?!----)[^-]*)*-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
];
const MARKER = "[secret removed]";

/** Scrubs a text; `add` teaches it a secret learned at run time (an installation token minted for a job). */
export type Scrubber = ((text: string) => string) & { add?: (secret: string) => void };

/** A scrubber for these secret values (short values are ignored: they would match everywhere). */
export function secretScrubber(secrets: ReadonlyArray<string | undefined>): Scrubber {
  const forms = new Set<string>();
  const learn = (secret: string | undefined) => {
    if (!secret || secret.length < 8) return;
    for (const form of secretForms(secret)) {
      forms.add(form);
      // A form with line breaks of its own (a PEM) is found in a joined view only if it is joined the same way.
      for (const view of joinedViews(form)) forms.add(view.text);
      // The view without whitespace finds a secret that has blanks of its own only without them.
      forms.add(form.replace(/\s+/g, ""));
    }
  };
  for (const secret of secrets) learn(secret);
  let find = literalMatcher(forms);
  const known = new Set(secrets);
  const scrub: Scrubber = (text: string) => {
    const ranges: Range[] = find(text);
    for (const view of joinedViews(text)) for (const range of find(view.text)) ranges.push(view.toOriginal(range));
    for (const view of spreadViews(text)) for (const range of find(view.text)) ranges.push(view.toOriginal(range));
    let out = replaceRanges(text, ranges);
    for (const shape of TOKEN_SHAPES) out = out.replace(shape, MARKER);
    return out;
  };
  scrub.add = (secret: string) => {
    if (known.has(secret)) return;
    known.add(secret);
    learn(secret);
    find = literalMatcher(forms);
  };
  return scrub;
}

/** The text with each range replaced by a marker; overlapping or touching ranges share one. */
function replaceRanges(text: string, ranges: Range[]): string {
  if (ranges.length === 0) return text;
  const parts: string[] = [];
  let covered = -1;
  for (const [start, end] of [...ranges].sort((x, y) => x[0] - y[0])) {
    if (start > covered) parts.push(text.slice(Math.max(covered, 0), start), MARKER);
    covered = Math.max(covered, end);
  }
  parts.push(text.slice(covered));
  return parts.join("");
}

/** The secrets of this process, from its environment. */
export function processSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(env).flatMap(([name, value]) => (isSecretVariable(name, value) ? [value] : []));
}
