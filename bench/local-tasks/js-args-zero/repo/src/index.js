export { parseArgs } from "./parse-args.js";
export { tokenize } from "./tokenize.js";
