// Real git repositories for tests: files written, committed on main.
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "./git-client.ts";

export async function gitRepo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-gitrepo-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  const g = git(dir);
  await g.raw(["init", "--quiet", "--initial-branch=main"]);
  await g.raw(["add", "--all"]);
  await g.raw([
    "-c",
    "user.name=Test",
    "-c",
    "user.email=test@example.invalid",
    "commit",
    "--quiet",
    "--message",
    "initial",
  ]);
  return dir;
}
