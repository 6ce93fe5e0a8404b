// The files that decide how tests are collected and run, rather than what they test: a
// candidate that changes them can make a failing suite "pass" without touching the bug
// (a conftest.py that turns every test into a no-op, `addopts = --deselect`, a test script
// that exits 0, a composite action CI runs). Protected by default; a maintainer opens one
// by name (paths.allowTestInfrastructure). Files that hold test settings beside ordinary
// ones (pyproject.toml, setup.cfg, package.json) are compared by their test sections only,
// parsed before and after, so a dependency bump stays allowed.
import { parse as parseToml } from "smol-toml";
import { matchesAny } from "./glob.ts";

/** A whole file whose every change can change how tests run. */
const WHOLE_FILES: ReadonlyArray<{ pattern: string; what: string }> = [
  { pattern: "conftest.py", what: "a pytest conftest (hooks and fixtures for every test below it)" },
  { pattern: "{pytest.ini,.pytest.ini,tox.ini,.coveragerc,noxfile.py}", what: "test runner configuration" },
  { pattern: "{sitecustomize,usercustomize}.py", what: "Python start-up code (runs in every interpreter)" },
  { pattern: "*.pth", what: "a Python path file (its import lines run in every interpreter)" },
  {
    pattern: "{jest,vitest,vitest.workspace,karma,ava,playwright,cypress}.config.{js,cjs,mjs,ts,cts,mts,json}",
    what: "JavaScript test runner configuration",
  },
  {
    pattern: "{karma.conf.js,.mocharc.{js,cjs,mjs,json,jsonc,yml,yaml},.mocharc,jest.setup.{js,ts},setupTests.{js,ts}}",
    what: "JavaScript test runner configuration",
  },
  { pattern: "{Makefile,makefile,GNUmakefile,*.mk}", what: "a Makefile (test and build targets)" },
  {
    pattern: "{.env,.env.test,.env.local}",
    what: "an environment file (may set PYTEST_ADDOPTS, NODE_OPTIONS and the like)",
  },
  { pattern: "/.github/**", what: "GitHub configuration (workflows, composite actions, CODEOWNERS, dependabot)" },
];

/** Files whose test sections are protected, and how to read those sections. */
const SECTIONED: ReadonlyArray<{ pattern: string; sections: (text: string) => Record<string, unknown>; what: string }> =
  [
    {
      pattern: "pyproject.toml",
      sections: pyprojectSections,
      what: "its [tool.pytest*], [tool.coverage*], hatch or tox settings",
    },
    {
      pattern: "setup.cfg",
      sections: (text) => iniSections(text, /^(tool:pytest|pytest|coverage:.*|tox:.*|testenv.*)$/),
      what: "its [tool:pytest], [coverage:*] or tox section",
    },
    {
      pattern: "package.json",
      sections: packageJsonSections,
      what: "its scripts, jest, mocha, ava, nyc, c8 or vitest settings",
    },
  ];

export type InfrastructureChange = { file: string; detail: string };

/** Before and after text of a changed file (null: the file did not exist on that side). */
export type FileSides = { before: string | null; after: string | null };

/**
 * Why changing `path` touches test infrastructure, or undefined. `sides` gives the file's
 * text before and after, for the files compared by section; without it a change to such a
 * file counts as touching its test sections.
 */
export function testInfrastructureChange(path: string, sides: FileSides | undefined): InfrastructureChange | undefined {
  const whole = WHOLE_FILES.find((w) => matchesAny(path, [w.pattern]));
  if (whole) return { file: path, detail: `${path} is test infrastructure: ${whole.what}` };
  const sectioned = SECTIONED.find((s) => matchesAny(path, [s.pattern]));
  if (!sectioned) return undefined;
  const changed = sides ? changedSections(sides, sectioned.sections) : ["(not compared)"];
  if (changed.length === 0) return undefined;
  return { file: path, detail: `${path} changes ${sectioned.what} (${changed.join(", ")}): test infrastructure` };
}

/** The section names whose parsed value differs between the two sides; an unreadable side counts as every section changed. */
function changedSections(sides: FileSides, read: (text: string) => Record<string, unknown>): string[] {
  const parse = (text: string | null): Record<string, unknown> | undefined => {
    if (text === null) return {};
    try {
      return read(text);
    } catch {
      return undefined;
    }
  };
  const before = parse(sides.before);
  const after = parse(sides.after);
  if (!after) return ["the file no longer parses"];
  if (!before) return ["the file did not parse before"];
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name])).sort();
}

function pyprojectSections(text: string): Record<string, unknown> {
  const tool = (parseToml(text) as { tool?: Record<string, unknown> }).tool ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(tool))
    if (/^(pytest|coverage|hatch|tox)/i.test(name)) out[`tool.${name}`] = value;
  return out;
}

/** INI sections (setup.cfg) whose names match, as their normalised lines; comments dropped. */
function iniSections(text: string, wanted: RegExp): Record<string, unknown> {
  const out: Record<string, string[]> = {};
  let current: string[] | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[([^\]]+)\]/.exec(line);
    if (header) {
      const name = (header[1] ?? "").trim();
      current = wanted.test(name) ? (out[name] ??= []) : undefined;
      continue;
    }
    if (current && line && !/^[#;]/.test(line)) current.push(line.replace(/\s+/g, " "));
  }
  return out;
}

function packageJsonSections(text: string): Record<string, unknown> {
  const json = JSON.parse(text) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of ["scripts", "jest", "mocha", "ava", "nyc", "c8", "vitest"])
    if (json[key] !== undefined) out[key] = json[key];
  return out;
}
