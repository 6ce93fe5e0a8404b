import { decodePart, encodePart } from "./encode.js";

// An object into `a=1&b=2`; arrays repeat the key, undefined and null are left out.
export function stringify(params) {
  const pairs = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) pairs.push(`${encodePart(key)}=${encodePart(item)}`);
  }
  return pairs.join("&");
}

export function parseQuery(query) {
  const out = {};
  for (const pair of query.replace(/^\?/, "").split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const key = decodePart(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? "" : decodePart(pair.slice(eq + 1));
    if (key in out) out[key] = [].concat(out[key], value);
    else out[key] = value;
  }
  return out;
}
