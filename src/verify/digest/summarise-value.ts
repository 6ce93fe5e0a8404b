// Large values as the model should see them (CoCoST's serialization): kind, size, head
// and tail, instead of a dump that eats the context.
export function summariseValue(text: string, limit = 160): string {
  if (text.length <= limit) return text;
  const trimmed = text.trim();
  const kind = trimmed.startsWith("[")
    ? "list"
    : trimmed.startsWith("{")
      ? "mapping"
      : trimmed.startsWith("(")
        ? "tuple"
        : /^['"`]/.test(trimmed)
          ? "string"
          : "value";
  const items =
    kind === "list" || kind === "tuple" || kind === "mapping" ? ` ~${trimmed.split(",").length} items,` : "";
  const part = Math.floor((limit - 20) / 2);
  return `<${kind},${items} ${text.length} chars: ${text.slice(0, part)} … ${text.slice(-part)}>`;
}
