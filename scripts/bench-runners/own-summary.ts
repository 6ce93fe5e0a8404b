// Each runner's own account of a run, read from the summary it prints (or its own
// machine-readable stream), written apart from the bot's parsers so the bench compares
// two independent readings of the same run.
import { stripVTControlCharacters } from "node:util";

export type OwnCounts = { pass: number; fail: number; skip: number; note?: string };

export type SummaryKind =
  "pytest" | "unittest" | "mocha" | "jest" | "vitest" | "ava" | "node-test" | "tape" | "go-json" | "cargo";

const num = (text: string, pattern: RegExp): number => Number(pattern.exec(text)?.[1] ?? 0);
const sumAll = (text: string, pattern: RegExp): number =>
  [...text.matchAll(pattern)].reduce((n, m) => n + Number(m[1]), 0);

export function ownCounts(kind: SummaryKind, raw: string): OwnCounts | undefined {
  const out = stripVTControlCharacters(raw);
  switch (kind) {
    case "pytest": {
      const line = out
        .split("\n")
        .reverse()
        .find((l) => /\b\d+ (passed|failed|error|errors|skipped)\b.* in [\d.]+s/.test(l));
      if (!line) return undefined;
      return {
        pass: num(line, /(\d+) passed/) + num(line, /(\d+) xpassed/),
        fail: num(line, /(\d+) failed/) + num(line, /(\d+) errors?\b/),
        skip: num(line, /(\d+) skipped/) + num(line, /(\d+) xfailed/),
      };
    }
    case "unittest": {
      const ran = /^Ran (\d+) tests? in/m.exec(out);
      if (!ran) return undefined;
      const status = /^(OK|FAILED)(?: \((.*)\))?$/m.exec(out)?.[2] ?? "";
      const fail =
        num(status, /failures=(\d+)/) + num(status, /errors=(\d+)/) + num(status, /unexpected successes=(\d+)/);
      const skip = num(status, /skipped=(\d+)/) + num(status, /expected failures=(\d+)/);
      return { pass: Number(ran[1]) - fail - skip, fail, skip };
    }
    case "mocha":
      if (!/\d+ passing/.test(out)) return undefined;
      return { pass: num(out, /(\d+) passing/), fail: num(out, /(\d+) failing/), skip: num(out, /(\d+) pending/) };
    case "jest": {
      const line = /^Tests:\s+(.*)$/m.exec(out)?.[1];
      if (!line) return undefined;
      return {
        pass: num(line, /(\d+) passed/),
        fail: num(line, /(\d+) failed/),
        skip: num(line, /(\d+) skipped/) + num(line, /(\d+) todo/),
      };
    }
    case "vitest": {
      const line = /^\s*Tests\s+(.*)$/m.exec(out)?.[1];
      if (!line) return undefined;
      return {
        pass: num(line, /(\d+) passed/),
        fail: num(line, /(\d+) failed/),
        skip: num(line, /(\d+) skipped/) + num(line, /(\d+) todo/),
      };
    }
    case "ava": {
      if (!/\d+ tests? (passed|failed)/.test(out) && !/✔/.test(out)) return undefined;
      return {
        pass: num(out, /(\d+) tests? passed/),
        fail: num(out, /(\d+) tests? failed/) + num(out, /(\d+) uncaught exceptions?/),
        skip: num(out, /(\d+) tests? skipped/) + num(out, /(\d+) tests? todo/) + num(out, /(\d+) known failures?/),
      };
    }
    case "node-test": {
      if (!/^[#ℹ] pass \d+/m.test(out)) return undefined;
      return {
        pass: num(out, /^[#ℹ] pass (\d+)/m),
        fail: num(out, /^[#ℹ] fail (\d+)/m) + num(out, /^[#ℹ] cancelled (\d+)/m),
        skip: num(out, /^[#ℹ] skipped (\d+)/m) + num(out, /^[#ℹ] todo (\d+)/m),
      };
    }
    case "tape": {
      // tape's own summary counts assertions; its tests are the `# name` headers, each
      // failed when one of its assertions is `not ok`.
      // A skipped test is announced as `# SKIP name` and runs nothing.
      let pass = 0;
      let fail = 0;
      let skip = 0;
      let current: "pass" | "fail" | undefined;
      const close = () => {
        if (current === "pass") pass++;
        if (current === "fail") fail++;
      };
      for (const line of out.split("\n")) {
        if (/^# (tests|pass|fail|ok)\b/.test(line)) continue;
        if (/^# SKIP /.test(line)) {
          close();
          current = undefined;
          skip++;
        } else if (/^# /.test(line)) {
          close();
          current = "pass";
        } else if (/^not ok \d+/.test(line) && current) current = "fail";
      }
      close();
      if (pass + fail === 0) return undefined;
      return { pass, fail, skip, note: `${String(num(out, /^# tests (\d+)/m))} assertions` };
    }
    case "go-json": {
      const counts = { pass: 0, fail: 0, skip: 0 };
      for (const line of out.split("\n")) {
        if (!line.startsWith("{")) continue;
        const event = JSON.parse(line) as { Action?: string; Test?: string };
        if (!event.Test) continue;
        if (event.Action === "pass") counts.pass++;
        if (event.Action === "fail") counts.fail++;
        if (event.Action === "skip") counts.skip++;
      }
      return counts.pass + counts.fail + counts.skip === 0 ? undefined : counts;
    }
    case "cargo": {
      if (!/^test result:/m.test(out)) return undefined;
      return {
        pass: sumAll(out, /^test result: \w+\. (\d+) passed/gm),
        fail: sumAll(out, /; (\d+) failed/gm),
        skip: sumAll(out, /; (\d+) ignored/gm),
      };
    }
  }
}
