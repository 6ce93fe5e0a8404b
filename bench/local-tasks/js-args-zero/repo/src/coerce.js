// A raw option value into the type the spec asks for.
export function coerce(name, type, raw) {
  if (type === "number") {
    const n = Number(raw);
    if (raw === "" || Number.isNaN(n)) throw new Error(`--${name} expects a number, got "${raw}"`);
    return n;
  }
  if (type === "boolean") return raw !== "false";
  return raw;
}
