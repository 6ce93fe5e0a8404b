// argv into tokens: `--name=value` split in two, `-abc` into three short flags.
export function tokenize(argv) {
  const tokens = [];
  for (const arg of argv) {
    if (arg === "--") {
      tokens.push({ kind: "rest" });
    } else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq === -1) tokens.push({ kind: "long", name: arg.slice(2) });
      else tokens.push({ kind: "long", name: arg.slice(2, eq), value: arg.slice(eq + 1) });
    } else if (arg.startsWith("-") && arg.length > 1) {
      for (const ch of arg.slice(1)) tokens.push({ kind: "short", name: ch });
    } else {
      tokens.push({ kind: "positional", value: arg });
    }
  }
  return tokens;
}
