// Fixture repositories built once per test file and copied for each test. A copy is a few
// dozen small files written by the test process itself; building one starts git several
// times (init, add, commit, clone, switch, push), each a process forked from the test
// worker, whose large heap makes every fork costly. A copy is the built repository byte for
// byte: the same commits and shas in every test of the file, each test free to change its own.
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// By test file (its temporary folder, test/support/per-file-tmpdir.ts) and key: a worker process
// runs several files, and each file's folder goes when the file ends.
const templates = new Map<string, Promise<{ dir: string; value: unknown }>>();

/**
 * Builds the fixture named `key` once (in a folder of its own, which `build` fills and whose
 * result it returns), then copies each of its entries named in `copies` to the path given there
 * (a folder that already exists, as mkdtemp makes, is filled). Returns what `build` returned.
 */
export async function fixtureCopy<T>(
  key: string,
  build: (dir: string) => Promise<T>,
  copies: Record<string, string>,
): Promise<T> {
  const id = `${tmpdir()}\0${key}`;
  let template = templates.get(id);
  if (!template) {
    template = (async () => {
      const dir = await mkdtemp(join(tmpdir(), "autogen-fixture-"));
      return { dir, value: await build(dir) };
    })();
    templates.set(id, template);
    template.catch(() => templates.delete(id));
  }
  const { dir, value } = await template;
  for (const [name, target] of Object.entries(copies))
    await cp(join(dir, name), target, { recursive: true, verbatimSymlinks: true });
  return value as T;
}
