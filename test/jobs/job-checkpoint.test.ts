// A stored checkpoint is parsed on read by both stores (src/jobs/job-checkpoint.ts): a field
// that breaks the schema is dropped and named in a warning, text that is not a JSON object
// reads as an empty checkpoint; the job itself is still read, claimed and checkpointed.
// The rows are broken by hand, in the database, as a bad write or an old version would.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckpointWarn } from "../../src/jobs/job-checkpoint.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import { PgStore } from "../../src/jobs/pg-store.ts";
import type { JobRequest, Store } from "../../src/jobs/store.ts";
import { startPostgres, type TestPostgres } from "../support/embedded-postgres.ts";

type Warning = { meta: Parameters<CheckpointWarn>[0]; message: string };
type Opened = { store: Store; writeRaw: (id: number, text: string) => Promise<void>; close: () => Promise<void> };
type Backend = {
  name: string;
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
  open: (warn: CheckpointWarn) => Promise<Opened>;
};

let postgres: TestPostgres | undefined;
let databases = 0;

const backends: Backend[] = [
  {
    name: "SQLite",
    open: async (warn) => {
      const path = join(await mkdtemp(join(tmpdir(), "autogen-checkpoint-")), "autogen.db");
      const store = new JobStore(path, { warn });
      const raw = new DatabaseSync(path);
      return {
        store,
        writeRaw: async (id, text) => void raw.prepare("UPDATE jobs SET checkpoint = ? WHERE id = ?").run(text, id),
        close: async () => {
          raw.close();
          await store.close();
        },
      };
    },
  },
  {
    name: "Postgres",
    setup: async () => {
      postgres = await startPostgres();
    },
    teardown: async () => postgres?.stop(),
    open: async (warn) => {
      if (!postgres) throw new Error("postgres not started");
      const url = await postgres.database(`checkpoint_${++databases}`);
      const store = await PgStore.open(url, { poolSize: 2, warn });
      const raw = new pg.Client({ connectionString: url });
      await raw.connect();
      return {
        store,
        writeRaw: async (id, text) =>
          void (await raw.query("UPDATE jobs SET checkpoint = $1 WHERE id = $2", [text, id])),
        close: async () => {
          await raw.end();
          await store.close();
        },
      };
    },
  },
];

const request = (over: Partial<JobRequest> = {}): JobRequest => ({
  deliveryId: "d",
  installationId: 1,
  owner: "o",
  repo: "r",
  number: 1,
  kind: "fix",
  requester: "m",
  requesterId: 2,
  snapshot: { title: "t", body: "b" },
  ...over,
});

describe.each(backends)("stored checkpoints parsed on read: $name", { timeout: 240_000 }, (backend) => {
  let opened: Opened;
  const warnings: Warning[] = [];
  beforeAll(async () => {
    await backend.setup?.();
    opened = await backend.open((meta, message) => warnings.push({ meta, message }));
  }, 240_000);
  afterAll(async () => {
    await opened?.close();
    await backend.teardown?.();
  }, 120_000);

  it("drops the fields that break the schema, keeps the rest and unknown keys, and names them in a warning", async () => {
    const queued = await opened.store.enqueue(request({ deliveryId: "broken-fields", number: 1 }));
    if (!queued.queued) throw new Error("not queued");
    const id = queued.job.id;
    await opened.writeRaw(
      id,
      JSON.stringify({
        branch: "autogen/issue-1",
        pushed: 42,
        outcome: { status: "maybe", diff: "" },
        checkRun: { id: "nine", sha: "abc" },
        githubFailures: 2,
        note: "kept as it is",
      }),
    );
    warnings.length = 0;
    const job = await opened.store.get(id);
    expect(job?.checkpoint).toEqual({ branch: "autogen/issue-1", githubFailures: 2, note: "kept as it is" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toBe("stored checkpoint fields break their schema; dropped");
    expect(warnings[0]?.meta.jobId).toBe(id);
    expect([...(warnings[0]?.meta.dropped ?? [])].sort()).toEqual(["checkRun", "outcome", "pushed"]);
    expect(warnings[0]?.meta.problems.join("\n")).toContain("outcome.status");
    // The job is claimed and checkpointed on top of what is left.
    expect((await opened.store.claimNext(5))?.checkpoint).toEqual(job?.checkpoint);
    expect(await opened.store.checkpoint(id, { pushed: "abc123" })).toEqual({
      branch: "autogen/issue-1",
      githubFailures: 2,
      note: "kept as it is",
      pushed: "abc123",
    });
    await opened.store.finish(id, "done");
  });

  it("reads text that is not a JSON object as an empty checkpoint, with a warning", async () => {
    const queued = await opened.store.enqueue(request({ deliveryId: "not-json", number: 2 }));
    if (!queued.queued) throw new Error("not queued");
    const id = queued.job.id;
    for (const [text, message] of [
      ["[1, 2]", "stored checkpoint is not an object; read as empty"],
      ['"pushed"', "stored checkpoint is not an object; read as empty"],
      ["{pushed: abc", "stored checkpoint is not JSON; read as empty"],
    ] as const) {
      await opened.writeRaw(id, text);
      warnings.length = 0;
      expect((await opened.store.get(id))?.checkpoint).toEqual({});
      expect(warnings.map((w) => [w.message, w.meta.jobId, w.meta.dropped])).toEqual([[message, id, ["*"]]]);
    }
    await opened.store.finish(id, "done");
  });

  it("reads a well-formed checkpoint as written, without a warning", async () => {
    const checkRun = { id: 9, sha: "a".repeat(40), completed: true, html_url: "https://github.com/o/r/runs/9" };
    const queued = await opened.store.enqueue(
      request({ deliveryId: "fine", number: 3, checkpoint: { base: "main", refs: true, issue: 7 } }),
    );
    if (!queued.queued) throw new Error("not queued");
    warnings.length = 0;
    await opened.store.checkpoint(queued.job.id, { checkRun, stage: "plan", attempt: 2 });
    expect((await opened.store.get(queued.job.id))?.checkpoint).toEqual({
      base: "main",
      refs: true,
      issue: 7,
      checkRun,
      stage: "plan",
      attempt: 2,
    });
    expect(warnings).toEqual([]);
    await opened.store.finish(queued.job.id, "done");
  });
});
