// The strategies selectable by name (repo config `strategy.name`, CLI `--strategy`),
// built from what they need. Every LLM strategy reproduces an issue that has no failing
// test first (the shared stage); LPW's template pass runs after the model's own stages,
// and with a model configured every template edit ships only if the model accepts it.
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import { directStrategy } from "./direct/direct-strategy.ts";
import { withTemplateAfter } from "./first-pass.ts";
import { lpwStrategy } from "./lpw/lpw-strategy.ts";
import { withReproduction } from "./reproduce/with-reproduction.ts";
import { seidrStrategy } from "./seidr/seidr-strategy.ts";
import { slpwStrategy } from "./slpw/slpw-strategy.ts";
import type { Strategy } from "./task.ts";
import { templateStrategy, templateStrategyWith } from "./template/template-strategy.ts";

export type StrategyDeps = {
  llm?: LlmClient | undefined;
  strategy?: RepoConfig["strategy"] | undefined;
  /** Plans of similar accepted fixes (memory), for the plan stage. */
  memory?: string | undefined;
};

const needsModel = (name: string) =>
  new Error(
    `strategy "${name}" needs an LLM endpoint: set AUTOGEN_LLM_BASE_URL (and OPENAI_API_KEY if the server wants one), or use --strategy template`,
  );

export function strategyByName(name: string, deps: StrategyDeps = {}): Strategy {
  if (name === "template") return deps.llm ? templateStrategyWith({ llm: deps.llm }) : templateStrategy;
  if (name === "lpw") {
    if (!deps.llm) throw needsModel(name);
    const s = deps.strategy;
    const lpw = lpwStrategy({
      llm: deps.llm,
      ...(deps.memory ? { memory: deps.memory } : {}),
      ...(s?.knowledge ? { knowledge: "on-disk" as const } : {}),
      ...(s
        ? {
            maxPlanIterations: s.maxPlanIterations,
            maxRefinements: s.maxRefinements,
            planVerification: s.planVerification,
            codeExplanation: s.codeExplanation,
            instrumentedDebug: s.instrumentedDebug,
          }
        : {}),
    });
    return withReproduction(s?.templateFirstPass ? withTemplateAfter(lpw, deps.llm) : lpw, deps.llm);
  }
  if (name === "direct") {
    if (!deps.llm) throw needsModel(name);
    return withReproduction(
      directStrategy({ llm: deps.llm, ...(deps.strategy ? { maxRefinements: deps.strategy.maxRefinements } : {}) }),
      deps.llm,
    );
  }
  if (name === "slpw") {
    if (!deps.llm) throw needsModel(name);
    const s = deps.strategy;
    return withReproduction(
      slpwStrategy({
        llm: deps.llm,
        ...(s
          ? {
              planSamples: s.planSamples,
              verifiedPlans: s.verifiedPlans,
              maxPlanIterations: s.maxPlanIterations,
              maxRefinements: s.maxRefinements,
            }
          : {}),
      }),
      deps.llm,
    );
  }
  if (name === "seidr") {
    if (!deps.llm) throw needsModel(name);
    return withReproduction(
      seidrStrategy({
        llm: deps.llm,
        ...(deps.strategy ? { arity: deps.strategy.treeArity, width: deps.strategy.beamWidth } : {}),
      }),
      deps.llm,
    );
  }
  throw new Error(`unknown strategy "${name}"; available: template, lpw, slpw, seidr, direct`);
}
