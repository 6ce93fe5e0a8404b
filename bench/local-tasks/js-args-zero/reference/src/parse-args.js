import { coerce } from "./coerce.js";
import { tokenize } from "./tokenize.js";

// spec: { name: { type: "string" | "number" | "boolean", short?: "x", default?: value } }
export function parseArgs(argv, spec) {
  const byShort = Object.fromEntries(Object.entries(spec).filter(([, s]) => s.short).map(([name, s]) => [s.short, name]));
  const values = {};
  const positionals = [];
  const tokens = tokenize(argv);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === "rest") {
      positionals.push(...tokens.slice(i + 1).map((t) => t.value ?? (t.kind === "long" ? `--${t.name}` : `-${t.name}`)));
      break;
    }
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    const name = token.kind === "short" ? byShort[token.name] : token.name;
    const option = spec[name];
    if (!option) throw new Error(`unknown option ${token.kind === "short" ? "-" : "--"}${token.name}`);
    if (option.type === "boolean") {
      values[name] = token.value === undefined ? true : coerce(name, "boolean", token.value);
      continue;
    }
    let raw = token.value;
    if (raw === undefined) {
      const next = tokens[i + 1];
      if (!next || next.kind !== "positional") throw new Error(`--${name} needs a value`);
      raw = next.value;
      i++;
    }
    values[name] = coerce(name, option.type, raw);
  }
  for (const [name, option] of Object.entries(spec)) {
    if (values[name] === undefined && option.default !== undefined) values[name] = option.default;
  }
  return { ...values, _: positionals };
}
