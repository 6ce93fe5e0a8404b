// HTML built by a tagged template that escapes every interpolated value unless it is
// already Html: issue titles, logins, test names and error text are hostile input.
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => ENTITIES[c] ?? c);
}

function part(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(part).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += part(value) + (strings[i + 1] ?? "");
  });
  return new Html(out);
}

/** Markup made here from trusted parts only (numbers, fixed strings, escaped pieces). */
export function trusted(text: string): Html {
  return new Html(text);
}
