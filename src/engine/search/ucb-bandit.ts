// UCB1 over arms (SLPW's plans, then programs): an untried arm first, else the arm with
// the highest mean reward plus exploration bonus c·sqrt(ln N / n). A revised plan or a
// refined program is a new arm that starts from its parent's statistics.
export type ArmStats = { pulls: number; totalReward: number };

export class UcbBandit<K> {
  private readonly arms = new Map<K, ArmStats>();
  private readonly exploration: number;

  constructor(exploration = Math.SQRT2) {
    this.exploration = exploration;
  }

  add(key: K, parent?: K): void {
    const inherited = parent === undefined ? undefined : this.arms.get(parent);
    this.arms.set(key, inherited ? { ...inherited } : { pulls: 0, totalReward: 0 });
  }

  has(key: K): boolean {
    return this.arms.has(key);
  }

  stats(key: K): ArmStats | undefined {
    const s = this.arms.get(key);
    return s ? { ...s } : undefined;
  }

  /** The next arm to pull among `candidates` (all of them when omitted). */
  choose(candidates?: readonly K[]): K | undefined {
    const keys = candidates ?? [...this.arms.keys()];
    if (keys.length === 0) return undefined;
    const untried = keys.find((k) => (this.arms.get(k)?.pulls ?? 0) === 0);
    if (untried !== undefined) return untried;
    const total = keys.reduce((n, k) => n + (this.arms.get(k)?.pulls ?? 0), 0);
    let best: K | undefined;
    let bestValue = -Infinity;
    for (const k of keys) {
      const { pulls, totalReward } = this.arms.get(k) ?? { pulls: 0, totalReward: 0 };
      const value = totalReward / pulls + this.exploration * Math.sqrt(Math.log(total) / pulls);
      if (value > bestValue) {
        bestValue = value;
        best = k;
      }
    }
    return best;
  }

  reward(key: K, reward: number): void {
    const s = this.arms.get(key);
    if (!s) throw new Error("reward for an arm the bandit does not know");
    s.pulls += 1;
    s.totalReward += reward;
  }
}
