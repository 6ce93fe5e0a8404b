import { readFileSync } from "node:fs";

// Read at run time so the same code works from src/ (tests, npm scripts) and dist/.
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

export const VERSION: string = pkg.version;
