// SLPW's bandit choosing among DIFFERENT plan samples, with a response cache keyed by the
// request body in front of the model (as the live-llm bridge keeps one): real HTTP, the
// real openai SDK, a scripted model whose first plan is wrong, real pytest runs.
import { afterEach, describe, expect, it } from "vitest";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { slpwStrategy } from "../../src/engine/slpw/slpw-strategy.ts";
import { renderReport } from "../../src/report/render-report.ts";
import { Budget } from "../../src/llm/budget.ts";
import { openAiLlmClient } from "../../src/llm/llm-client.ts";
import { ResponseFormatMemory } from "../../src/llm/response-format.ts";
import { transcript } from "../../src/llm/transcript.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { fakeModelServer, sendJson, type FakeModelServer, type ReceivedRequest } from "../llm/fake-model-server.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const PLANS = ["Multiply a and b", "Subtract b from a twice", "Add a and b"];
const lastMessage = (r: ReceivedRequest) => r.messages.at(-1)?.content ?? "";

/** The model: the n-th plan it writes is PLANS[n]; it verifies a plan by what the plan says; it implements the plan it is given. */
function model(request: ReceivedRequest, planCount: number): unknown {
  const stage = request.response_format?.json_schema?.name;
  const prompt = lastMessage(request);
  const plan = PLANS.find((p) => prompt.includes(`1. ${p}`));
  if (stage === "plan") return { steps: [PLANS[planCount - 1] ?? "Give up"] };
  if (stage === "verify_plan") {
    const right = plan === "Add a and b";
    return {
      tests: [
        {
          test: "test_add",
          steps: [{ step: 1, value: right ? "5" : "-1" }],
          derived: right ? "5" : "-1",
          expected: "5",
          matches: right,
        },
      ],
    };
  }
  if (stage === "implement")
    return {
      edits: [
        {
          kind: "replace",
          path: "lib.py",
          search: "return a - b",
          replace: plan === "Add a and b" ? "return a + b" : "return a * b",
        },
      ],
    };
  throw new Error(`unexpected stage ${stage}`);
}

describe("SLPW with a caching server in front of the model", () => {
  it("gets 3 different plans, verifies them in the bandit's order, and implements the one whose walk-through matched", async () => {
    const cache = new Map<string, unknown>();
    let reached = 0;
    let plans = 0;
    const server = await fakeModelServer((request, res) => {
      const key = JSON.stringify(request);
      const hit = cache.get(key);
      if (hit) return sendJson(res, 200, hit);
      reached += 1;
      if (request.response_format?.json_schema?.name === "plan") plans += 1;
      const completion = {
        id: `chatcmpl-${reached}`,
        object: "chat.completion",
        created: 0,
        model: "gpt-4o",
        choices: [
          {
            index: 0,
            finish_reason: "stop",
            message: { role: "assistant", content: JSON.stringify(model(request, plans)) },
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      };
      cache.set(key, completion);
      sendJson(res, 200, completion);
    });
    servers.push(server);
    const budget = new Budget({ llmCalls: 30, tokens: 100_000, dollars: 5, minutes: 10 });
    const sink = transcript();
    const llm = openAiLlmClient({
      endpoint: { baseURL: server.baseURL, apiKey: "sk-x", model: "gpt-4o" },
      budget,
      transcript: sink,
      responseFormats: new ResponseFormatMemory(),
      maxRetries: 0,
      scrub: (t) => t,
    });
    const dir = await writeRepo({
      "lib.py": "def add(a, b):\n    return a - b\n",
      "test_lib.py":
        "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
    });
    const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
    const outcome = await slpwStrategy({ llm, planSamples: 3, verifiedPlans: 1 }).run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: localVerifier(pytestRunner([], "t"), sandbox),
      sandbox,
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 20, minutes: 5 },
    });

    // Three plan samples reached the model (none from the cache) and came back different.
    const planRequests = server.requests.filter((r) => r.response_format?.json_schema?.name === "plan");
    expect(planRequests.map((r) => /sample (\d) of 3/.exec(lastMessage(r))?.[1])).toEqual(["1", "2", "3"]);
    expect(new Set(planRequests.map((r) => (r as ReceivedRequest & { seed?: number }).seed)).size).toBe(3);
    expect(reached).toBe(server.requests.length);
    expect(budget.state).toMatchObject({ cachedCalls: 0, llmCalls: reached, promptTokens: 100 * reached });
    // What the bandit chose and why: every arm untried, so UCB pulls p1, p2, p3 in turn; p1 and
    // p2 get reward 0 (their walk-through derives -1, not 5), p3 reward 1: verified, with no separate check call.
    const verified = server.requests
      .filter((r) => r.response_format?.json_schema?.name === "verify_plan")
      .map((r) => PLANS.find((p) => lastMessage(r).includes(`1. ${p}`)));
    expect(verified).toEqual(["Multiply a and b", "Subtract b from a twice", "Add a and b"]);
    expect(sink.entries.map((e) => e.stage)).toEqual([
      "plan",
      "plan",
      "plan",
      "verify-plan",
      "verify-plan",
      "verify-plan",
      "implement",
    ]);
    expect(outcome).toMatchObject({
      status: "fixed",
      stopReason: "solved",
      message: "the program of plan p3 passes the visible tests and the regression gate",
      plan: { steps: ["Add a and b"], verified: true },
    });
    // What the bandit chose among, with each plan's verification score, for a reader of the report.
    expect(outcome.plan.search).toEqual({
      kind: "slpw",
      samples: 3,
      distinct: 3,
      plans: [
        { id: "p1", steps: ["Multiply a and b"], right: 0, of: 1 },
        { id: "p2", steps: ["Subtract b from a twice"], right: 0, of: 1 },
        { id: "p3", steps: ["Add a and b"], right: 1, of: 1 },
      ],
      implemented: ["p3"],
      chosen: "p3",
      programs: [{ id: "prog-p3", plan: "p3", passed: 2, of: 2 }],
      chosenProgram: "prog-p3",
    });
    const report = renderReport(outcome, { title: "t" });
    expect(report).toContain("SLPW sampled 3 plan(s), 3 distinct.");
    expect(report).toContain("- `p1` (sample), verification: 0 of 1 test(s) matched: Multiply a and b");
    expect(report).toContain("- `p3` (sample), verification: 1 of 1 test(s) matched: Add a and b");
    expect(report).toContain("Programs were made from `p3`; the fix is the program of plan `p3`.");
  });
});
