// Percent-encoding of keys and values.
export function encodePart(value) {
  return encodeURIComponent(String(value));
}

export function decodePart(text) {
  return decodeURIComponent(text.replaceAll("+", " "));
}
