// JUnit XML (pytest, vitest, jest-junit, mocha, node --test, surefire, gotestsum) into
// test results. Tolerant of each tool's dialect; a file that is not JUnit XML throws.
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { isForgedPath } from "../../workspace/safe-path.ts";
import type { TestCaseResult, TestStatus } from "../test-report.ts";

export class JunitParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JunitParseError";
  }
}

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  textNodeName: "#text",
  isArray: (name) => ["testsuite", "testcase", "failure", "error", "skipped"].includes(name),
  processEntities: true,
  htmlEntities: true,
  trimValues: false,
});

/** `root`: the workspace, so absolute file paths (node --test, mocha) become repository-relative. */
export function parseJunit(xml: string, options: { root?: string } = {}): TestCaseResult[] {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new JunitParseError(`malformed JUnit XML at line ${valid.err.line}: ${valid.err.msg}`);
  const doc = parser.parse(xml) as XmlNode;
  const top = (doc.testsuites ?? doc) as XmlNode;
  if (!("testsuite" in top) && !("testcase" in top))
    throw new JunitParseError("not a JUnit report: no <testsuites>, <testsuite> or <testcase> element");
  const results: TestCaseResult[] = [];
  walkSuite(top, [], results);
  const base = options.root?.replace(/\/?$/, "/");
  const mapped = base
    ? results.map((r) =>
        r.file?.startsWith(base) ? { ...r, file: r.file.slice(base.length), id: r.id.replaceAll(base, "") } : r,
      )
    : results;
  // The tests write this report: a file name that climbs out with `..` is not kept as a file (it stays in the id).
  return mapped.map((r) => (r.file !== undefined && isForgedPath(r.file) ? { ...r, file: undefined } : r));
}

function walkSuite(node: XmlNode, suitePath: string[], out: TestCaseResult[], pytest = false): void {
  for (const suite of (node.testsuite as XmlNode[] | undefined) ?? []) {
    const name = attr(suite, "name");
    // pytest names its single suite "pytest"; that is not part of a test's identity.
    const path = name && name !== "pytest" ? [...suitePath, name] : suitePath;
    walkSuite(suite, path, out, pytest || name === "pytest");
  }
  for (const testcase of (node.testcase as XmlNode[] | undefined) ?? [])
    out.push(toResult(testcase, suitePath, pytest));
}

/** pytest's default (xunit2) report has no file: `tests.test_cart.TestCart` is module path, then classes (capitalised). */
function pytestFile(classname: string): string | undefined {
  const parts = classname.split(".");
  const module = parts.findIndex((p) => /^[A-Z]/.test(p));
  const path = (module === -1 ? parts : parts.slice(0, module)).join("/");
  return path && /^[\w/]+$/.test(path) ? `${path}.py` : undefined;
}

function toResult(tc: XmlNode, suitePath: string[], pytest: boolean): TestCaseResult {
  const name = attr(tc, "name") ?? "(unnamed)";
  const classname = attr(tc, "classname");
  const file = attr(tc, "file") ?? (pytest && classname ? pytestFile(classname) : undefined);
  const failure = first(tc.failure);
  const error = first(tc.error);
  const skipped = first(tc.skipped);
  let status: TestStatus = "pass";
  let problem: XmlNode | string | undefined;
  if (failure !== undefined) {
    status = "fail";
    problem = failure;
  } else if (error !== undefined) {
    status = "error";
    problem = error;
  } else if (skipped !== undefined) {
    status = "skip";
    problem = skipped;
  }
  const seconds = Number(attr(tc, "time"));
  return {
    id: testId(name, classname, file, suitePath),
    name,
    file,
    status,
    durationMs: Number.isFinite(seconds) ? Math.round(seconds * 1000) : undefined,
    message: problem === undefined ? undefined : messageOf(problem),
    details: problem === undefined ? undefined : textOf(problem),
  };
}

/** pytest (xunit1) gives file + dotted classname: rebuild the node id pytest accepts. */
function testId(name: string, classname: string | undefined, file: string | undefined, suitePath: string[]): string {
  if (file && file.endsWith(".py") && classname !== undefined) {
    const moduleDotted = file.slice(0, -3).replaceAll("/", ".");
    // A test a class inherits from a module elsewhere (a mixin in tests/__init__.py): `file` is
    // where the function is written, the node id is the class's module's.
    const owner = classname && !classname.startsWith(moduleDotted) ? pytestFile(classname) : undefined;
    if (owner) {
      const inner = classname.slice(owner.length - 3).replace(/^\./, "");
      return [owner, ...(inner ? inner.split(".") : []), name].join("::");
    }
    const inner = classname.startsWith(moduleDotted) ? classname.slice(moduleDotted.length).replace(/^\./, "") : "";
    return [file, ...(inner ? inner.split(".") : []), name].join("::");
  }
  const parts = [...(file ? [file] : []), ...(classname && classname !== name ? [classname] : suitePath), name];
  return parts.join(" > ");
}

function first(value: unknown): XmlNode | string | undefined {
  return Array.isArray(value) ? (value[0] as XmlNode | string) : undefined;
}

function attr(node: XmlNode, name: string): string | undefined {
  const value = node[`@${name}`];
  return value === undefined ? undefined : String(value);
}

function messageOf(problem: XmlNode | string): string | undefined {
  if (typeof problem === "string")
    return assertionMessage(problem.trim()) || problem.trim().split("\n")[0] || undefined;
  // node --test's junit reporter escapes a quote twice in the message attribute (`&amp;quot;`).
  const message = attr(problem, "message")?.replaceAll("&quot;", '"');
  const type = attr(problem, "type");
  if (message) return message.trim();
  const text = textOf(problem);
  return (text && assertionMessage(text.trim())) || text?.trim().split("\n")[0] || type || undefined;
}

/**
 * mocha's xunit report has no message attribute: the failure's text is the error's message,
 * mocha's own `+ expected - actual` diff, then the stack. An assertion's message spread over
 * lines (node:assert's `+ actual - expected` diff under its first line) is kept whole, and
 * mocha's diff is added when the message has none (chai's message elides long values).
 */
function assertionMessage(text: string): string | undefined {
  const lines = text.split("\n");
  const stackAt = lines.findIndex((l, i) => i > 0 && (/^\s+at /.test(l) || /^\w*Error\b[^:]*: /.test(l)));
  const upToStack = stackAt === -1 ? lines : lines.slice(0, stackAt);
  const mochaDiff = upToStack.findIndex((l) => /^\s+\+ expected - actual\s*$/.test(l));
  const message = (mochaDiff === -1 ? upToStack : upToStack.slice(0, mochaDiff)).join("\n").trimEnd();
  if (/^\+ actual - expected$/m.test(message)) return message;
  if (mochaDiff === -1) return undefined;
  const diff = upToStack.slice(mochaDiff).filter((l) => l.trim());
  const indent = Math.min(...diff.map((l) => /^(\s*)/.exec(l)?.[1]?.length ?? 0));
  return `${message}\n${diff.map((l) => l.slice(indent)).join("\n")}`;
}

function textOf(problem: XmlNode | string): string | undefined {
  if (typeof problem === "string") return problem || undefined;
  const text = problem["#text"];
  return typeof text === "string" && text.trim() ? text : undefined;
}
