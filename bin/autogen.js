#!/usr/bin/env node
// Installed `autogen` command: runs the compiled CLI when built (npm run build), else
// the TypeScript sources directly (Node >= 22.18 strips types natively).
import { existsSync } from "node:fs";

const built = new URL("../dist/cli.js", import.meta.url);
await import(existsSync(built) ? built.href : new URL("../src/cli.ts", import.meta.url).href);
