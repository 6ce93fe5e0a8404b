// Workspaces with real git: a bare "remote" on disk, mirrors, worktrees, resets; and
// loopback HTTP servers standing in for a remote that wants credentials or never answers.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git } from "../support/git-client.ts";
import { GitWorkspaceError, RepoCache } from "../../src/workspace/repo-cache.ts";
import { gitRepo } from "../support/git-repo.ts";

const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  server.on("connection", (s) => sockets.add(s));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  return out;
}

describe("RepoCache", () => {
  it("mirrors a repository, checks out worktrees, resets them between candidates and removes them", async () => {
    const remote = await gitRepo({ "a.py": "A = 1\n", "pkg/b.py": "B = 2\n", ".gitignore": "build/\n" });
    const cache = new RepoCache({ root: await mkdtemp(join(tmpdir(), "autogen-cache-")) });
    const mirror = await cache.mirror(remote);
    const tree = await cache.worktree(mirror, "main", "job-1-candidate-1");
    expect(await readFile(join(tree.path, "a.py"), "utf8")).toBe("A = 1\n");

    await writeFile(join(tree.path, "a.py"), "A = 99\n");
    await writeFile(join(tree.path, "new.py"), "N = 1\n");
    await writeFile(join(tree.path, "pkg", "b.py"), "B = 0\n");
    await writeFile(join(tree.path, ".gitignore"), "build/\n");
    await tree.reset();
    expect(await readFile(join(tree.path, "a.py"), "utf8")).toBe("A = 1\n");
    expect(await readFile(join(tree.path, "pkg", "b.py"), "utf8")).toBe("B = 2\n");
    expect(existsSync(join(tree.path, "new.py"))).toBe(false);

    await tree.remove();
    expect(existsSync(tree.path)).toBe(false);
    expect((await git(mirror).raw(["worktree", "list"])).trim().split("\n")).toHaveLength(1);
  });

  it("fetches new commits into an existing mirror", async () => {
    const remote = await gitRepo({ "a.py": "A = 1\n" });
    const cache = new RepoCache({ root: await mkdtemp(join(tmpdir(), "autogen-cache-")) });
    const mirror = await cache.mirror(remote);
    await writeFile(join(remote, "a.py"), "A = 2\n");
    await git(remote).raw(["-c", "user.name=T", "-c", "user.email=t@e.invalid", "commit", "-qam", "second"]);
    expect(await cache.mirror(remote)).toBe(mirror);
    const tree = await cache.worktree(mirror, "main", "after-fetch");
    expect(await readFile(join(tree.path, "a.py"), "utf8")).toBe("A = 2\n");
  });

  it("sends credentials to the one command that needs them and never writes them to disk or errors", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const url = await serve((req, res) => {
      seen.push(req.headers);
      res.writeHead(404).end();
    });
    const root = await mkdtemp(join(tmpdir(), "autogen-cache-"));
    const cache = new RepoCache({ root, timeoutMs: 20_000 });
    const token = "ghs_installationTokenForThisPushOnly123";
    const error = await cache
      .mirror(`${url}/owner/repo.git`, { username: "x-access-token", password: token })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitWorkspaceError);
    expect((error as Error).message).toMatch(/^clone http:\/\/127\.0\.0\.1:\d+\/owner\/repo\.git failed:/);
    expect((error as Error).message).not.toContain(token);
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`);
    for (const file of await allFiles(root)) expect(await readFile(file, "utf8")).not.toContain(token);
  });

  it("times out cleanly on a remote that accepts the connection and never answers", async () => {
    const url = await serve(() => {
      // never respond
    });
    const cache = new RepoCache({ root: await mkdtemp(join(tmpdir(), "autogen-cache-")), timeoutMs: 1_500 });
    const started = Date.now();
    await expect(cache.mirror(`${url}/owner/repo.git`)).rejects.toThrow(
      /^clone http:\/\/127\.0\.0\.1:\d+\/owner\/repo\.git timed out after 2 s \(the remote did not answer\)$/,
    );
    // A hang guard: the remote never answers, so without the timeout this never ends.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it("refuses URLs, refs and names that could become options or other transports", async () => {
    const cache = new RepoCache({ root: await mkdtemp(join(tmpdir(), "autogen-cache-")) });
    await expect(cache.mirror("--upload-pack=touch /tmp/pwned")).rejects.toThrow("refusing repository URL");
    await expect(cache.mirror("ext::sh -c touch% /tmp/pwned")).rejects.toThrow("refusing repository URL");
    await expect(cache.mirror("git@github.com:owner/repo.git")).rejects.toThrow("only https URLs");
    const mirror = await cache.mirror(await gitRepo({ "a.py": "A = 1\n" }));
    await expect(cache.worktree(mirror, "--orphan", "x")).rejects.toThrow('refusing ref "--orphan"');
    await expect(cache.worktree(mirror, "main", "../escape")).rejects.toThrow("refusing worktree name");
    await expect(cache.worktree(mirror, "no-such-branch", "x")).rejects.toThrow(/^resolve no-such-branch failed/);
  });

  it("can be cancelled through its abort signal", async () => {
    const url = await serve(() => {});
    const controller = new AbortController();
    const cache = new RepoCache({
      root: await mkdtemp(join(tmpdir(), "autogen-cache-")),
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 300);
    await expect(cache.mirror(`${url}/o/r.git`)).rejects.toThrow("was cancelled");
  });
});
