// The fake GitHub's Git Data API and the App's identity, answered for real over the test's
// local bare repository: blobs with `git hash-object -w`, trees through a private index
// read from base_tree, commits with `git commit-tree` as the authenticated bot (GitHub
// ignores nothing here: author and committer come from the token, as for an App that sends
// none), refs with `git update-ref` (a non-forced update that is not a fast-forward is
// refused with 422, as GitHub does). Every ref change is logged in the bare repository's
// reflog with a "fake-github" message, so a test can tell it from a `git push`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export type FakeBot = { slug: string; id: number };
export const DEFAULT_FAKE_BOT: FakeBot = { slug: "autogen-test", id: 98765 };

type Reply = [number, unknown, Record<string, string>?];

export function bareRepoPath(cloneUrl: string): string {
  return cloneUrl.startsWith("file:") ? fileURLToPath(cloneUrl) : cloneUrl;
}

export function fakeGitData(
  repoOf: () => string,
  botOf: () => FakeBot,
  hooks: { beforeRefUpdate?: (operation: string, ref: string) => void } = {},
) {
  const git = (args: string[], options: { input?: string | Buffer; env?: Record<string, string> } = {}) =>
    execFileSync("git", ["--git-dir", repoOf(), ...args], {
      input: options.input ?? "",
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: tmpdir(),
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        ...options.env,
      },
      maxBuffer: 256 * 1024 * 1024,
    });
  const tryGit = (args: string[]) => {
    try {
      return git(args, {}).toString("utf8").trim();
    } catch {
      return undefined;
    }
  };
  /**
   * Objects known to be in the repository (by repository and sha: their type): those made here and
   * those git found. An object never changes and is not pruned while a test runs, so a full sha once
   * found is not asked of git again; a ref (whose target moves) always is.
   */
  const objectTypes = new Map<string, string>();
  const known = (name: string) => (/^[0-9a-f]{40}$/.test(name) ? objectTypes.get(`${repoOf()} ${name}`) : undefined);
  const made = (sha: string, type: string) => {
    objectTypes.set(`${repoOf()} ${sha}`, type);
    return sha;
  };
  /** The object each name resolves to (undefined: none), all in one `git cat-file --batch-check`. */
  const resolve = (names: string[]): Array<{ sha: string; type: string } | undefined> => {
    const asked = names.filter((n) => n !== "" && !/[\s]/.test(n) && known(n) === undefined);
    const lines = asked.length
      ? git(["cat-file", "--batch-check=%(objectname) %(objecttype)"], { input: `${asked.join("\n")}\n` })
          .toString("utf8")
          .split("\n")
      : [];
    const found = new Map(
      asked.map((name, i) => {
        const [sha, type] = (lines[i] ?? "").split(" ");
        if (!sha || !type || !/^[0-9a-f]{40}$/.test(sha)) return [name, undefined] as const;
        if (sha === name) made(sha, type);
        return [name, { sha, type }] as const;
      }),
    );
    return names.map((n) => {
      const type = known(n);
      return type === undefined ? found.get(n) : { sha: n, type };
    });
  };
  /** Whether each sha names an object of its type. */
  const existAll = (objects: Array<[sha: string, type: string]>) => {
    const named = objects.filter(([sha]) => /^[0-9a-f]{40}$/.test(sha));
    const types = resolve(named.map(([sha]) => sha));
    const ok = new Map(named.map(([sha, type], i) => [`${sha} ${type}`, types[i]?.type === type]));
    return objects.map(([sha, type]) => ok.get(`${sha} ${type}`) === true);
  };
  const exists = (sha: string, type: string) => existAll([[sha, type]])[0] === true;
  const bot = () => {
    const b = botOf();
    return { name: `${b.slug}[bot]`, email: `${b.id}+${b.slug}[bot]@users.noreply.github.com` };
  };
  const refJson = (ref: string, sha: string) => ({
    ref,
    node_id: "REF_x",
    url: `https://api.github.com/repos/o/r/git/${ref}`,
    object: { type: "commit", sha, url: `https://api.github.com/repos/o/r/git/commits/${sha}` },
  });
  const headOf = (ref: string) => {
    const found = resolve([`${ref}^{commit}`])[0];
    return found?.type === "commit" ? found.sha : undefined;
  };
  const update = (operation: string, args: string[]) => {
    git([
      "-c",
      "core.logAllRefUpdates=always",
      "update-ref",
      "--create-reflog",
      "-m",
      `fake-github ${operation}`,
      ...args,
    ]);
  };

  /** undefined: not one of these operations. */
  function answer(
    id: string,
    params: Record<string, string>,
    body: Record<string, unknown> | undefined,
  ): Reply | undefined {
    switch (id) {
      case "apps/get-authenticated":
        return [
          200,
          {
            id: 1,
            slug: botOf().slug,
            name: botOf().slug,
            owner: { login: "octo-org" },
            permissions: { contents: "write" },
          },
        ];
      case "users/get-by-username": {
        const b = botOf();
        if (params.username !== `${b.slug}[bot]`) return [404, { message: "Not Found" }];
        return [200, { login: params.username, id: b.id, type: "Bot" }];
      }
      case "git/create-blob": {
        const content = Buffer.from(String(body?.content ?? ""), body?.encoding === "base64" ? "base64" : "utf8");
        const sha = made(git(["hash-object", "-w", "--stdin"], { input: content }).toString("utf8").trim(), "blob");
        return [201, { sha, url: `https://api.github.com/repos/o/r/git/blobs/${sha}` }];
      }
      case "git/create-tree": {
        const entries = body?.tree as Array<{ path: string; mode: string; type: string; sha: string | null }>;
        const base = body?.base_tree as string | undefined;
        const present = existAll([
          ...(base === undefined ? [] : [[base, "tree"] as [string, string]]),
          ...entries.filter((e) => e.sha !== null).map((e) => [e.sha ?? "", e.type] as [string, string]),
        ]);
        if (base !== undefined && !present.shift()) return [422, { message: "Invalid tree info" }];
        const scratch = mkdtempSync(join(tmpdir(), "fake-github-index-"));
        try {
          const env = { GIT_INDEX_FILE: join(scratch, "index") };
          if (base) git(["read-tree", base], { env });
          const lines: string[] = [];
          for (const e of entries) {
            if (e.sha === null) lines.push(`0 ${"0".repeat(40)}\t${e.path}`);
            else if (!present.shift()) return [422, { message: `tree.sha ${e.sha} is not a valid ${e.type}` }];
            else lines.push(`${e.mode} ${e.sha}\t${e.path}`);
          }
          git(["update-index", "--index-info"], { env, input: `${lines.join("\n")}\n` });
          const sha = made(git(["write-tree"], { env }).toString("utf8").trim(), "tree");
          return [201, { sha, url: `https://api.github.com/repos/o/r/git/trees/${sha}`, tree: [], truncated: false }];
        } finally {
          rmSync(scratch, { recursive: true, force: true });
        }
      }
      case "git/create-commit": {
        const tree = String(body?.tree ?? "");
        const parents = (body?.parents as string[] | undefined) ?? [];
        if (!existAll([[tree, "tree"], ...parents.map((p) => [p, "commit"] as [string, string])]).every(Boolean))
          return [422, { message: "Tree SHA or parent SHA does not exist" }];
        // The authenticated bot, as GitHub records it when the request names no author or committer.
        const given = (body?.author ?? body?.committer) as { name: string; email: string } | undefined;
        const who = given ?? bot();
        const env = {
          GIT_AUTHOR_NAME: who.name,
          GIT_AUTHOR_EMAIL: who.email,
          GIT_COMMITTER_NAME: who.name,
          GIT_COMMITTER_EMAIL: who.email,
        };
        const message = String(body?.message ?? "");
        const output = git(["commit-tree", tree, ...parents.flatMap((p) => ["-p", p])], { env, input: message });
        const sha = made(output.toString("utf8").trim(), "commit");
        const person = { ...who, date: new Date().toISOString() };
        return [
          201,
          {
            sha,
            node_id: "C_x",
            url: `https://api.github.com/repos/o/r/git/commits/${sha}`,
            html_url: `https://github.com/o/r/commit/${sha}`,
            author: person,
            committer: person,
            message: body?.message,
            tree: { sha: tree, url: "" },
            parents: parents.map((p) => ({ sha: p, url: "", html_url: "" })),
            verification: {
              verified: given === undefined,
              reason: given === undefined ? "valid" : "unsigned",
              signature: null,
              payload: null,
              verified_at: null,
            },
          },
        ];
      }
      case "git/get-ref": {
        const ref = `refs/${params.ref}`;
        const sha = headOf(ref);
        return sha ? [200, refJson(ref, sha)] : [404, { message: "Not Found" }];
      }
      case "git/list-matching-refs": {
        // GitHub matches by prefix; `for-each-ref <pattern>` lists, in the same order, the refs
        // equal to the pattern or under it as a folder, and those come first here, then the rest.
        const prefix = `refs/${params.ref}`;
        const all = git(["for-each-ref", "--format=%(refname) %(objectname)", "refs/"])
          .toString("utf8")
          .split("\n")
          .filter((l) => l.startsWith(prefix));
        const folder = prefix.endsWith("/") ? prefix : `${prefix}/`;
        const underPattern = (l: string) => {
          const name = l.split(" ")[0] ?? "";
          return name === prefix || name.startsWith(folder);
        };
        const refs = [...all.filter(underPattern), ...all.filter((l) => !underPattern(l))];
        return [200, refs.map((l) => l.split(" ")).map(([ref, sha]) => refJson(ref ?? "", sha ?? ""))];
      }
      case "git/create-ref": {
        const ref = String(body?.ref ?? "");
        const sha = String(body?.sha ?? "");
        if (!/^refs\/[^ ]+\/[^ ]+$/.test(ref)) return [422, { message: "Reference name is invalid" }];
        if (!exists(sha, "commit")) return [422, { message: "Object does not exist" }];
        hooks.beforeRefUpdate?.(id, ref);
        if (headOf(ref)) return [422, { message: "Reference already exists" }];
        update(id, [ref, sha, ""]);
        return [201, refJson(ref, sha)];
      }
      case "git/update-ref": {
        const ref = `refs/${params.ref}`;
        const sha = String(body?.sha ?? "");
        if (!exists(sha, "commit")) return [422, { message: "Object does not exist" }];
        hooks.beforeRefUpdate?.(id, ref);
        const current = headOf(ref);
        if (!current) return [422, { message: "Reference does not exist" }];
        const fastForward = tryGit(["merge-base", "--is-ancestor", current, sha]) !== undefined;
        if (body?.force !== true && !fastForward) return [422, { message: "Update is not a fast forward" }];
        update(id, [ref, sha, current]);
        return [200, refJson(ref, sha)];
      }
      case "git/delete-ref": {
        const ref = `refs/${params.ref}`;
        const current = headOf(ref);
        if (!current) return [422, { message: "Reference does not exist" }];
        update(id, ["-d", ref, current]);
        return [204, ""];
      }
      default:
        return undefined;
    }
  }

  return {
    answer,
    /** The reflog messages of a ref in the bare repository, newest first ("fake-github …" for the API's updates; a push writes "push"). */
    refUpdates(ref: string): string[] {
      const out = tryGit(["reflog", "show", "--format=%gs", ref]);
      return out ? out.split("\n") : [];
    },
  };
}
