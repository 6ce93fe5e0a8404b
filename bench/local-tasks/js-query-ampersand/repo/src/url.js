import { stringify } from "./query.js";

export function buildUrl(path, params = {}) {
  const query = stringify(params);
  return query ? `${path}?${query}` : path;
}
