// Path patterns as in .gitignore: `*` within a segment, `**` across segments, `?` one
// character; a pattern without `/` matches a file name at any depth.
export function globToRegExp(pattern: string): RegExp {
  const anchored = pattern.includes("/");
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === "*" && pattern[i + 1] === "*") {
      const slash = pattern[i + 2] === "/";
      source += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(anchored ? `^${source.replace(/^\//, "")}$` : `(^|/)${source}$`);
}

export function matchesAny(path: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => globToRegExp(p).test(path));
}
