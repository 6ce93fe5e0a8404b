import { describe, expect, it } from "vitest";
import { scaleSearch, selectBeam, temperatureSchedule } from "../../../src/engine/search/beam.ts";
import { UcbBandit } from "../../../src/engine/search/ucb-bandit.ts";

describe("UcbBandit", () => {
  it("tries every arm once, in order, before using the statistics", () => {
    const bandit = new UcbBandit<string>();
    for (const k of ["a", "b", "c"]) bandit.add(k);
    const chosen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const k = bandit.choose() as string;
      chosen.push(k);
      bandit.reward(k, 0);
    }
    expect(chosen).toEqual(["a", "b", "c"]);
  });

  it("then follows mean reward plus the exploration bonus", () => {
    const bandit = new UcbBandit<string>(0.5);
    bandit.add("good");
    bandit.add("bad");
    bandit.reward("good", 3);
    bandit.reward("bad", 1);
    expect(bandit.choose()).toBe("good");
    // Pulled often enough without reward, the good arm loses to the less explored one.
    for (let i = 0; i < 20; i++) bandit.reward("good", 0);
    expect(bandit.choose()).toBe("bad");
  });

  it("a revised plan inherits its parent's statistics (and then diverges)", () => {
    const bandit = new UcbBandit<string>();
    bandit.add("plan-1");
    bandit.reward("plan-1", 2);
    bandit.reward("plan-1", 1);
    bandit.add("plan-1-revised", "plan-1");
    expect(bandit.stats("plan-1-revised")).toEqual({ pulls: 2, totalReward: 3 });
    bandit.reward("plan-1-revised", 3);
    expect(bandit.stats("plan-1")).toEqual({ pulls: 2, totalReward: 3 });
    expect(bandit.stats("plan-1-revised")).toEqual({ pulls: 3, totalReward: 6 });
  });

  it("chooses only among the candidates it is given", () => {
    const bandit = new UcbBandit<number>();
    for (const k of [1, 2, 3]) bandit.add(k);
    expect(bandit.choose([3, 2])).toBe(3);
    expect(() => bandit.reward(9, 1)).toThrow("does not know");
  });
});

describe("beam and schedule", () => {
  it("keeps the W best, ties to the earlier candidate", () => {
    expect(selectBeam(["a", "b", "c", "d"], (c) => ({ a: 0.5, b: 1, c: 0.5, d: 0 })[c] ?? 0, 2)).toEqual(["b", "a"]);
    expect(selectBeam([1, 2], (c) => c, 0)).toEqual([]);
  });

  it("raises the temperature from 0 to 1 across the drafts", () => {
    expect(temperatureSchedule(5)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(temperatureSchedule(1)).toEqual([0]);
  });

  it("scales arity and width to the candidate budget", () => {
    expect(scaleSearch(400)).toEqual({ arity: 10, width: 10 });
    expect(scaleSearch(30)).toEqual({ arity: 5, width: 5 });
  });
});
