// The action runs the committed bundle (Actions do not install dependencies): it must be
// what `npm run build:action` makes from the sources now, byte for byte.
import { readdir, readFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ACTION_BUNDLE, buildAction } from "../../scripts/build-action.ts";

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe("the action's bundle", () => {
  it("is up to date: a fresh build is byte-identical to action/bundle (run `npm run build:action` and commit it otherwise)", async () => {
    const fresh = join(await mkdtemp(join(tmpdir(), "autogen-bundle-")), "bundle");
    await buildAction(fresh);
    const names = await files(fresh);
    expect(names).toContain("index.js");
    expect(names).toContain("tree-sitter/tree-sitter-python.wasm");
    expect(await files(ACTION_BUNDLE), "the files of action/bundle").toEqual(names);
    for (const name of names) {
      const [a, b] = [await readFile(join(fresh, name)), await readFile(join(ACTION_BUNDLE, name))];
      expect(a.equals(b), `action/bundle/${name} is stale: run \`npm run build:action\` and commit it`).toBe(true);
    }
  });

  it("holds no path of the machine that built it", async () => {
    const text = await readFile(join(ACTION_BUNDLE, "index.js"), "utf8");
    expect(text).not.toContain(process.cwd());
  });
});
