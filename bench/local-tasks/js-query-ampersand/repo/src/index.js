export { parseQuery, stringify } from "./query.js";
export { buildUrl } from "./url.js";
