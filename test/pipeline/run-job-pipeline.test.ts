// The job pipeline on real Python repositories (pytest in the sandbox, the model-free
// template strategy): the order of its stages, each door's differences as options and
// ports, and a stop at each stage as the outcome a door reports.
import { describe, expect, it } from "vitest";
import { repoConfigSchema, type RepoConfig } from "../../src/config/repo-config-schema.ts";
import { Budget, BudgetExceededError } from "../../src/llm/budget.ts";
import type { LlmClient } from "../../src/llm/llm-client.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import type { Strategy } from "../../src/engine/task.ts";
import { HEARTBEAT_MS } from "../../src/pipeline/heartbeat.ts";
import type { HeartbeatClock } from "../../src/pipeline/pipeline-ports.ts";
import type { Heartbeat, PipelineEvent, PipelineInput, PipelinePorts } from "../../src/pipeline/pipeline-ports.ts";
import { runJobPipeline } from "../../src/pipeline/run-job-pipeline.ts";
import type { InstallResult } from "../../src/verify/install/run-install.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { NoTestsDetectedError } from "../../src/verify/runners/test-runner.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

const BUGGY = {
  "lib.py": "def add(a, b):\n    return a - b\n",
  "test_lib.py": "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
};
const GREEN = {
  "lib.py": "def add(a, b):\n    return a + b\n",
  "test_lib.py": "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
};
const SANDBOX = { timeoutMs: 60_000, env: PYTEST_ENV };

type Recorder = {
  stages: string[];
  strategyChoices: Array<{ memory: string; llm: boolean }>;
  verifierSandboxEnv: Array<Record<string, string> | undefined>;
};

function setUp(
  workspace: string,
  overrides: Partial<PipelineInput> = {},
  ports: Partial<PipelinePorts> = {},
  config: RepoConfig = repoConfigSchema.parse({}),
) {
  const seen: Recorder = { stages: [], strategyChoices: [], verifierSandboxEnv: [] };
  const input: PipelineInput = {
    workspace,
    config,
    trigger: { kind: "failing-tests" },
    sandboxFor: (c) => ({ ...SANDBOX, env: { ...SANDBOX.env, ...c.test.env } }),
    ...overrides,
  };
  const allPorts: PipelinePorts = {
    verifier: async (runner, _config, sandbox) => {
      seen.verifierSandboxEnv.push(sandbox.env);
      return { verifier: localVerifier(runner, sandbox) };
    },
    strategy: ({ llm, memory }): Strategy => {
      seen.strategyChoices.push({ memory, llm: llm !== undefined });
      return templateStrategy;
    },
    progress: { stage: (event: PipelineEvent) => void seen.stages.push(event.stage) },
    ...ports,
  };
  return { input, ports: allPorts, seen };
}

describe("runJobPipeline", () => {
  it("runs the stages in order on a failing suite and returns the engine's outcome, checked", async () => {
    const { input, ports, seen } = setUp(await writeRepo(BUGGY), {}, { recall: () => [] });
    const result = await runJobPipeline(input, ports);
    expect(seen.stages).toEqual(["runner", "baseline", "visible", "strategy", "run", "post-checks"]);
    expect(result.stop).toBeUndefined();
    expect(result.visible).toEqual({ kind: "tests", ids: ["test_lib.py::test_add"] });
    expect(result.outcome).toMatchObject({ strategy: "template", status: "fixed", changedFiles: ["lib.py"] });
    // The post-checks ran: the diff is in the worktree.
    expect(result.outcome.diff).toContain("+    return a + b");
    expect(seen.strategyChoices).toEqual([{ memory: "(none)", llm: false }]);
  });

  it("the install's variables reach the verifier's sandbox and the outcome names the install", async () => {
    const summary = {
      manager: "pip" as const,
      lockfile: "requirements.txt",
      command: "pip install",
      source: "cache" as const,
      seconds: 0,
      network: false,
      ok: true,
    };
    const install: InstallResult = {
      ran: true,
      ok: true,
      summary,
      message: "installed",
      env: { AUTOGEN_PIPELINE_TEST: "1" },
    };
    const { input, ports, seen } = setUp(await writeRepo(BUGGY), {}, { install: async () => install });
    const result = await runJobPipeline(input, ports);
    expect(seen.stages.slice(0, 3)).toEqual(["runner", "install", "baseline"]);
    expect(seen.verifierSandboxEnv[0]).toMatchObject({ AUTOGEN_PIPELINE_TEST: "1" });
    expect(result.outcome.dependencies).toEqual(summary);
  });

  it("named tests (the CLI's --test, a red build's caused failures) skip the baseline run", async () => {
    const { input, ports, seen } = setUp(await writeRepo(BUGGY), {
      trigger: { kind: "failing-tests", tests: ["test_lib.py::test_add"] },
    });
    const result = await runJobPipeline(input, ports);
    expect(seen.stages).toEqual(["runner", "visible", "strategy", "run", "post-checks"]);
    expect(result.baseline).toBeUndefined();
    expect(result.outcome.status).toBe("fixed");
  });

  it("eval's options: no baseline (the whole suite is visible), no regression gate, no post-checks", async () => {
    const { input, ports, seen } = setUp(await writeRepo(BUGGY), {
      baseline: false,
      regression: false,
      postChecks: false,
      setup: false,
    });
    const result = await runJobPipeline(input, ports);
    expect(seen.stages).toEqual(["runner", "visible", "strategy", "run"]);
    expect(result.visible).toEqual({ kind: "all" });
    expect(result.outcome.status).toBe("fixed");
    expect(result.outcome.evidence.regressionAfter).toBeUndefined();
  });

  it("a repository with no test command stops at the runner, before anything runs", async () => {
    const { input, ports, seen } = setUp(await writeRepo({ "README.md": "no code\n" }));
    const result = await runJobPipeline(input, ports);
    expect(result.stop?.stage).toBe("runner");
    expect(result.stop?.stage === "runner" && result.stop.error).toBeInstanceOf(NoTestsDetectedError);
    expect(result.outcome).toMatchObject({ status: "not-fixed", stopReason: "broken-tests" });
    expect(seen.stages).toEqual([]);
    expect(seen.verifierSandboxEnv).toEqual([]);
  });

  it("a failing setup command stops there: broken tests, no baseline, no strategy", async () => {
    const config = repoConfigSchema.parse({ test: { setup: "python3 -c 'import sys; sys.exit(3)'" } });
    const { input, ports, seen } = setUp(await writeRepo(BUGGY), {}, {}, config);
    const result = await runJobPipeline(input, ports);
    expect(result.stop).toMatchObject({ stage: "setup" });
    expect(result.outcome).toMatchObject({ status: "not-fixed", stopReason: "broken-tests" });
    expect(result.outcome.message).toContain("the setup command");
    expect(seen.stages).toEqual(["runner", "setup"]);
    expect(seen.strategyChoices).toEqual([]);
  });

  it("a green suite with no model is nothing to fix, with the baseline as evidence; the model port is asked once", async () => {
    let asked = 0;
    const llm = () => {
      asked += 1;
      return undefined;
    };
    const { input, ports, seen } = setUp(
      await writeRepo(GREEN),
      { trigger: { kind: "issue", text: "add is wrong" } },
      { llm },
    );
    const result = await runJobPipeline(input, ports);
    expect(asked).toBe(1);
    expect(result.stop).toMatchObject({ stage: "visible", kind: "nothing", hint: undefined });
    // The door had a model port and it gave none: the model-free strategy is named.
    expect(result.outcome).toMatchObject({ strategy: "template", stopReason: "nothing-to-fix" });
    expect(result.outcome.message).toContain("needs a model");
    expect(result.outcome.evidence.before).toMatchObject({ passed: 1, failed: 0 });
    expect(seen.stages).toEqual(["runner", "baseline"]);
  });

  it("marks the model's budget ready once the baseline has run, before the visible tests are told", async () => {
    // The clock says which stage was last told: the mark must fall after the baseline, before "visible".
    let now = 0;
    const budget = new Budget({ llmCalls: 0, tokens: 10_000, dollars: 1, minutes: 5 }, () => now);
    const client: LlmClient = {
      // No call has room (the post-checks' behaviour check asks and is told so, as a real client would).
      call: () => Promise.reject(new BudgetExceededError("llmCalls", "0 of 0 model calls used")),
      budget,
      model: "scripted",
    };
    const stageClock: Record<string, number> = { runner: 1, baseline: 2, visible: 3, strategy: 4, run: 5 };
    const { input, ports } = setUp(
      await writeRepo(BUGGY),
      {},
      {
        llm: () => client,
        progress: { stage: (event: PipelineEvent) => void (now = stageClock[event.stage] ?? now) },
      },
    );
    await runJobPipeline(input, ports);
    expect(budget.state.startedAt).toBe(0);
    expect(budget.state.readyAt).toBe(2);
  });

  it("a suite whose test files do not load is a broken test command, never planned against", async () => {
    const files = { "test_lib.py": "import module_that_is_not_there\n\ndef test_x():\n    assert True\n" };
    const { input, ports, seen } = setUp(await writeRepo(files));
    const result = await runJobPipeline(input, ports);
    expect(result.stop).toMatchObject({ stage: "visible", kind: "broken" });
    expect(result.outcome).toMatchObject({ stopReason: "broken-tests" });
    expect(result.outcome.message).toContain("the test command is broken");
    expect(seen.strategyChoices).toEqual([]);
  });

  it("a strategy port that refuses (a door's bad strategy name) ends the pipeline with its error", async () => {
    const refuse = () => {
      throw new Error("unknown strategy nope");
    };
    const { input, ports, seen } = setUp(await writeRepo(BUGGY), {}, { strategy: refuse });
    await expect(runJobPipeline(input, ports)).rejects.toThrow("unknown strategy nope");
    expect(seen.stages).toEqual(["runner", "baseline", "visible"]);
  });

  it("a long phase beats through the progress port with its stage, elapsed time and what runs", async () => {
    let now = 0;
    const ticks: Array<() => void> = [];
    let stopped = 0;
    const clock: HeartbeatClock = {
      now: () => now,
      every: (_ms, tick) => {
        ticks.push(tick);
        return () => {
          stopped += 1;
        };
      },
    };
    const beats: Heartbeat[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { input, ports } = setUp(await writeRepo(BUGGY), {
      trigger: { kind: "failing-tests", tests: ["test_lib.py::test_add"] },
    });
    const slowVerifier: PipelinePorts["verifier"] = async (runner, config, sandbox) => {
      const tick = () => ticks.forEach((t) => t());
      now += HEARTBEAT_MS - 1;
      tick();
      expect(beats).toEqual([]);
      now += 1;
      tick();
      now += HEARTBEAT_MS;
      tick();
      release();
      return ports.verifier(runner, config, sandbox);
    };
    const result = await runJobPipeline(input, {
      ...ports,
      verifier: slowVerifier,
      clock,
      progress: { heartbeat: (beat) => beats.push(beat) },
    });
    await held;
    expect(beats).toEqual([
      { stage: "verifier", elapsedMs: HEARTBEAT_MS, doing: "choosing the verifier" },
      { stage: "verifier", elapsedMs: 2 * HEARTBEAT_MS, doing: "choosing the verifier" },
    ]);
    expect(ticks).toHaveLength(1);
    expect(stopped).toBe(1);
    expect(result.outcome.status).toBe("fixed");
  });
});
