// In a V8 coverage run each node process loads resources/node/autogen-coverage-scripts.cjs
// first: it records the source maps of the code jest and vitest compile through node:vm
// (their offsets are the transformed text's) and writes a vitest fork's coverage when the fork
// reports its stop (its pool then ends it by SIGTERM). The localiser reads what it wrote
// (engine/template/source-map.ts).
import { fileURLToPath } from "node:url";

export const COVERAGE_PRELOAD = fileURLToPath(
  new URL("../../resources/node/autogen-coverage-scripts.cjs", import.meta.url),
);

/** The files it writes into the coverage folder, beside node's `coverage-*.json`. */
export const COVERAGE_SCRIPTS_PREFIX = "autogen-scripts-";
