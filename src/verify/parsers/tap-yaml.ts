// The YAML diagnostics block (`---` … `...`) after a TAP result line, as tape and node --test
// write it: `key: value` at the block's own indentation, a block scalar (`|-`) or a nested
// value on the lines below, kept line by line (a multi-line expected value or node:assert's
// `+ actual - expected` diff is only readable with its line breaks and indentation).

/**
 * Each key's value, block scalars and nested values dedented with their line breaks.
 * `unquote`: node --test quotes its strings as YAML (`'test'`); tape writes a value as
 * util.inspect prints it, where the quotes say it is a string, so they are kept.
 */
export function readTapYaml(
  lines: readonly string[],
  from: number,
  options: { unquote: boolean },
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!/^\s*---\s*$/.test(lines[from] ?? "")) return out;
  const base = /^(\s*)\S/.exec(lines[from + 1] ?? "")?.[1]?.length ?? 0;
  let key: string | undefined;
  let nested: string[] = [];
  const close = () => {
    if (key === undefined || nested.length === 0) return;
    while (nested.length > 0 && (nested.at(-1) ?? "").trim() === "") nested.pop();
    const indent = Math.min(...nested.filter((l) => l.trim()).map((l) => /^(\s*)/.exec(l)?.[1]?.length ?? 0));
    out[key] = nested.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join("\n");
    nested = [];
  };
  for (let i = from + 1; i < lines.length && !/^\s*\.\.\.\s*$/.test(lines[i] ?? ""); i++) {
    const line = lines[i] ?? "";
    const indent = /^(\s*)/.exec(line)?.[1]?.length ?? 0;
    const kv = indent === base ? /^\s*([A-Za-z_]+):\s?(.*)$/.exec(line) : null;
    if (kv) {
      close();
      key = kv[1] as string;
      const value = (kv[2] ?? "").trim();
      out[key] = /^[|>][-+]?$/.test(value) ? "" : options.unquote ? unquote(value) : value;
    } else if (key !== undefined && (indent > base || line.trim() === "")) {
      nested.push(line);
    }
  }
  close();
  return out;
}

/** A single-quoted YAML scalar (`'it''s'`) or a double-quoted one, as its text; anything else as written. */
function unquote(value: string): string {
  const single = /^'(.*)'$/.exec(value);
  if (single) return (single[1] ?? "").replaceAll("''", "'");
  const double = /^"(.*)"$/.exec(value);
  if (double) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return double[1] ?? "";
    }
  }
  return value;
}
