// Percent-encoding of keys and values.
export function encodePart(value) {
  return encodeURI(String(value));
}

export function decodePart(text) {
  return decodeURIComponent(text.replaceAll("+", " "));
}
