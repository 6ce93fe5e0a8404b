// Red team, the App's door: a hostile `.github/autogen.yml` (an alias bomb, a directory or a
// link in its place, too large, not UTF-8, nested past the stack, duplicate keys, not a
// mapping) never crashes a delivery or a job. A label gets the usual "did not start" comment;
// a command's job ends failed with the reason in its status comment. No stack trace anywhere.
import { execFileSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import { TestOctokit } from "../support/test-octokit.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAutogenApp } from "../../src/app/create-app.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import type { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { fakeGitHub, type FakeGitHubState } from "../support/fake-github.ts";
import { gitRepo } from "../support/git-repo.ts";
import { networkGuard } from "../support/network-guard.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { webhookExample } from "../support/webhook-examples.ts";

const CONFIG_PATH = ".github/autogen.yml";
const ALIAS_BOMB = [
  "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
  ...["b", "c", "d", "e", "f", "g", "h", "i"].map(
    (k, i) => `${k}: &${k} [${Array(9).fill(`*${"abcdefgh"[i]}`).join(", ")}]`,
  ),
].join("\n");
const ISSUE = { title: "Discount is added", body: "total([10, 20], 5) gives 35." };
const b64 = (bytes: string | Buffer) => Buffer.from(bytes).toString("base64");
const STACK = /\n\s+at |ReferenceError|RangeError|TypeError|Excessive alias count/;

/** What the repository holds at the config's path: a text, or a raw contents-API answer. */
type Hostile = { name: string; text?: string; contents?: unknown; problem: string };
const HOSTILE: Hostile[] = [
  {
    name: "an alias bomb",
    text: ALIAS_BOMB,
    problem:
      "uses YAML aliases (*name) more than 50 times in all, the limit that stops alias bombs: write the values out",
  },
  {
    name: "nesting past the stack",
    text: `label: ${"[".repeat(30_000)}${"]".repeat(30_000)}`,
    problem: "nests too deeply to read: flatten the structure",
  },
  {
    name: "duplicate keys",
    text: "label: a\nlabel: b\n",
    problem: 'the key "label" is given twice (the second at line 2, column 1): keep one',
  },
  {
    name: "a list at the top level",
    text: "- label\n- autogen\n",
    problem: "the file must be a mapping of keys to values",
  },
  {
    name: "a file over the size limit",
    text: `# ${"x".repeat(300_000)}\n`,
    problem: "the file is 300003 bytes; at most 65536 are read",
  },
  {
    name: "7,000 unknown keys",
    text: Array.from({ length: 7_000 }, (_, i) => `k${i}: 1`).join("\n"),
    problem: 'unknown key "k0" (known keys: label,',
  },
  {
    name: "1,000 wrong values",
    text: `test:\n  env:\n${Array.from({ length: 1_000 }, (_, i) => `    K${i}: [1]`).join("\n")}`,
    problem: "and 980 more problems",
  },
  {
    name: "a directory in place of the file",
    contents: [{ type: "file", name: "x.yml", path: `${CONFIG_PATH}/x.yml`, size: 3 }],
    problem: "cannot be read: it is a directory, not a file",
  },
  {
    name: "a symbolic link out of the repository",
    contents: { type: "symlink", target: "/etc/passwd", path: CONFIG_PATH, name: "autogen.yml", size: 11 },
    problem: "cannot be read: it is a symbolic link",
  },
  {
    name: "a file too large for the contents API",
    contents: { type: "file", encoding: "none", content: "", size: 5_000_000, path: CONFIG_PATH, name: "autogen.yml" },
    problem: "cannot be read: it is too large (5000000 bytes)",
  },
  {
    name: "bytes that are not UTF-8",
    contents: {
      type: "file",
      encoding: "base64",
      content: b64(Buffer.from([0x6c, 0x3a, 0x20, 0xff, 0xfe, 0x0a])),
      size: 6,
      path: CONFIG_PATH,
      name: "autogen.yml",
    },
    problem: "cannot be read: it is not UTF-8 text",
  },
];

let state: FakeGitHubState;
let github: ReturnType<typeof fakeGitHub>;
let store: JobStore;
let root: string;
const network = networkGuard();

beforeEach(async () => {
  network.start();
  root = await mkdtemp(join(tmpdir(), "autogen-app-config-"));
  const remote = join(root, "remote.git");
  execFileSync("git", ["clone", "--quiet", "--bare", await gitRepo({ "README.md": "shop\n" }), remote]);
  state = {
    issue: { ...ISSUE },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write" },
    files: {},
    defaultBranch: "main",
    cloneUrl: remote,
  };
  github = fakeGitHub(state);
  store = new JobStore(join(root, "jobs.db"));
});

afterEach(() => {
  const { unmatched, unused } = network.stop();
  store.close();
  expect(github.errors, "requests that do not fit GitHub's REST description").toEqual([]);
  expect(unmatched, "requests nothing answered").toEqual([]);
  expect(unused, "scripted model answers never used").toEqual([]);
});

function plant(hostile: Hostile) {
  if (hostile.text !== undefined) state.files[CONFIG_PATH] = hostile.text;
  else state.contents = { [CONFIG_PATH]: hostile.contents };
}

async function startApp() {
  let pool: WorkerPool | undefined;
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: "s",
    logLevel: "fatal",
    Octokit: TestOctokit,
  });
  await probot.load(
    createAutogenApp({
      store,
      cacheRoot: join(root, "cache"),
      scrub: secretScrubber([testPrivateKey()]),
      concurrency: 1,
      perInstallation: 1,
      statusThrottleMs: 60_000,
      onReady: (p) => (pool = p),
    }),
  );
  return { probot, idle: () => pool?.idle() ?? Promise.resolve() };
}

function withRepository<T extends Record<string, unknown>>(payload: T): T {
  const repository = payload.repository as Record<string, unknown>;
  return {
    ...payload,
    repository: {
      ...repository,
      name: "shop",
      full_name: "octo-org/shop",
      default_branch: "main",
      owner: { ...(repository.owner as object), login: "octo-org" },
    },
    sender: { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" },
  };
}

function labeled() {
  const payload = withRepository(webhookExample("issues", "labeled") as Record<string, unknown>);
  return {
    ...payload,
    issue: { ...(payload.issue as object), number: 42, ...ISSUE },
    label: { ...(payload.label as object), name: "autogen" },
    installation: { id: 99, node_id: "MDIz" },
  };
}

function command(body: string) {
  const payload = withRepository(webhookExample("issue_comment", "created") as Record<string, unknown>);
  return {
    ...payload,
    issue: { ...(payload.issue as object), number: 42, ...ISSUE },
    comment: { ...(payload.comment as object), body },
    installation: { id: 99 },
  };
}

describe("a hostile config, through the App", () => {
  it.each(HOSTILE)(
    "$name, on a label: one 'did not start' comment saying what is wrong, no job, the delivery succeeds",
    async (hostile) => {
      plant(hostile);
      const { probot, idle } = await startApp();
      await probot.receive({ id: `label-${hostile.name}`, name: "issues", payload: labeled() } as never);
      await idle();
      expect(state.comments).toHaveLength(1);
      const body = state.comments[0]?.body ?? "";
      expect(body.startsWith(`autogen-bot did not start: \`${CONFIG_PATH}\` is invalid.\n\n- `)).toBe(true);
      expect(body).toContain(hostile.problem);
      expect(body).not.toMatch(STACK);
      // GitHub refuses comments over 65,536 characters: the problems are capped.
      expect(body.length).toBeLessThan(10_000);
      expect(await store.queueDepth()).toEqual({ queued: 0, running: 0 });
      expect(await store.inboxDepth()).toMatchObject({ failed: 0 });
    },
  );

  it.each(
    HOSTILE.filter((h) =>
      ["an alias bomb", "a directory in place of the file", "bytes that are not UTF-8"].includes(h.name),
    ),
  )(
    "$name, on /autogen fix: the job ends failed, its status comment says the config is invalid and why",
    async (hostile) => {
      plant(hostile);
      const { probot, idle } = await startApp();
      await probot.receive({
        id: `fix-${hostile.name}`,
        name: "issue_comment",
        payload: command("/autogen fix"),
      } as never);
      await idle();
      const job = await store.latest("octo-org", "shop", 42);
      expect(job).toMatchObject({ state: "failed", kind: "fix" });
      expect(job?.error).toContain(`${CONFIG_PATH} is invalid:\n- `);
      expect(job?.error).not.toMatch(STACK);
      expect(state.comments).toHaveLength(1);
      const body = state.comments[0]?.body ?? "";
      expect(body).toContain(`Stopped: \`${CONFIG_PATH}\` on \`main\` is invalid:\n\n- `);
      expect(body).toContain(hostile.problem);
      expect(body).not.toMatch(STACK);
      expect(await store.inboxDepth()).toMatchObject({ failed: 0 });
    },
  );
});
