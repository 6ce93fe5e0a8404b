export { parseCsv } from "./parse-csv.js";
export { splitLine } from "./split-line.js";
