// The Probot app as `probot run` loads it: configured from the environment when loaded.
// `autogen serve` and the tests build it through appFromConfig / createAutogenApp.
import type { ApplicationFunction } from "probot";
import { appFromConfig } from "./app/app-from-config.ts";
import { loadServerConfig } from "./config/env-config.ts";

const app: ApplicationFunction = (probot, options) => appFromConfig(loadServerConfig(process.env)).app(probot, options);

export default app;
