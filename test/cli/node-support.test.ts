// The installed command checks its Node before loading any TypeScript: an old Node gets a
// sentence saying what to install (and exit 2), never ERR_UNKNOWN_FILE_EXTENSION.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { nodeProblem } from "../../bin/node-support.js";
import { ROOT } from "../support/run-cli.ts";

describe("the Node check of bin/autogen.js", () => {
  it("refuses Nodes that cannot strip types when running from the sources, naming what to install", () => {
    for (const version of ["20.20.2", "22.12.0", "22.17.9", "23.5.0", "18.0.0"]) {
      const problem = nodeProblem(version, true);
      expect(problem, version).toContain(`this is Node ${version}`);
      expect(problem).toContain("npm run autogen --");
      expect(problem).toContain("Node 24 LTS");
    }
  });

  it("accepts Nodes that can, and the built CLI from 22.12", () => {
    for (const version of ["22.18.0", "23.6.0", "24.21.0", "25.0.0"])
      expect(nodeProblem(version, true), version).toBeUndefined();
    expect(nodeProblem("22.12.0", false)).toBeUndefined();
    expect(nodeProblem("22.11.0", false)).toContain("needs Node.js 22.12 or later");
  });

  // The machines here ship Node 20 as /usr/bin/node: the real old Node runs the real entry.
  const oldNode = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => existsSync(path));
  it.runIf(oldNode)("run by the machine's own Node, says which Node it needs or runs", async () => {
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(oldNode!, [`${ROOT}bin/autogen.js`, "--version"], { timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error && typeof error.code === "number" ? error.code : 0, stdout, stderr });
      });
    });
    const version = await new Promise<string>((resolve) =>
      execFile(oldNode!, ["-p", "process.versions.node"], (_e, out) => resolve(out.trim())),
    );
    if (nodeProblem(version, !existsSync(`${ROOT}dist/cli.js`))) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`this is Node ${version}`);
      expect(result.stderr).not.toContain("ERR_UNKNOWN_FILE_EXTENSION");
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } else {
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^\d+\.\d+\.\d+/);
    }
  });
});
