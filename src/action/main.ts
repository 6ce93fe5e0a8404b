// The GitHub Action's entry (built into action/bundle/index.js by `npm run build:action`).
import { runAction } from "./run-action.ts";

const { exitCode } = await runAction();
// The sandbox and the store may hold handles open a little longer: the job is done.
process.exit(exitCode);
