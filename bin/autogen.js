#!/usr/bin/env node
// Installed `autogen-bot` command: runs the compiled CLI when built (npm run build), else
// the TypeScript sources directly (Node >= 22.18 strips types natively). Checks the Node
// first, so an old one gets a sentence saying what to install instead of a stack trace.
// The compiled modules are kept in the bot's data dir (which sandboxed tests never see):
// every later start skips compiling (and type-stripping) its module graph again.
import { existsSync } from "node:fs";
import nodeModule from "node:module";
import { join } from "node:path";
import { nodeProblem } from "./node-support.js";

const built = new URL("../dist/cli.js", import.meta.url);
const fromSources = !existsSync(built);
const problem = nodeProblem(process.versions.node, fromSources);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
const dataDir = new URL(fromSources ? "../src/config/data-dir.ts" : "../dist/config/data-dir.js", import.meta.url);
const { defaultDataDir } = await import(dataDir.href);
nodeModule.enableCompileCache(join(defaultDataDir(), "compile-cache"));
await import(fromSources ? new URL("../src/cli.ts", import.meta.url).href : built.href);
