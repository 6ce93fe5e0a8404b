// Where a failing JavaScript test is written, from what the runner said about it: tape and
// mocha name a test by its title (mocha's suites joined by spaces), not by file and line.
// The file comes from the failure's own stack frames (tape's `at:`, mocha's and node's
// stacks), the runner's file, a file named in the id, and else from a search of the
// repository's JavaScript files for the title; in the file, the `it(…)`/`test(…)`/`t.test(…)`
// call with that title on a real syntax tree, the one holding the failing line when known,
// else the one whose enclosing describe titles the id names.
import { lstat } from "node:fs/promises";
import { CONTEXT_READ_LIMIT, tryReadWorktreeText } from "../../workspace/read-worktree-file.ts";
import { isForgedPath, safeRepoPath } from "../../workspace/safe-path.ts";
import { repoFiles } from "../context/repo-files.ts";
import { grammarForFile, parseSource, type SyntaxNode } from "../template/tree-sitter.ts";

export type FoundTest = {
  /** Repository-relative. */
  file: string;
  /** The opening line of each enclosing describe block or parent test, outermost first (1-based line numbers). */
  context: Array<{ line: number; text: string }>;
  /** The 1-based line the test call starts on, and the call's whole lines. */
  start: number;
  body: string[];
};

export type TestClues = {
  id: string;
  name?: string | undefined;
  file?: string | undefined;
  details?: string | undefined;
};

const TEST_CALLEES = new Set(["it", "test", "specify", "xit", "fit", "xtest", "tape"]);
const SUITE_CALLEES = new Set(["describe", "context", "suite", "xdescribe", "fdescribe"]);
const MODIFIERS = new Set(["only", "skip", "todo", "serial", "concurrent", "failing"]);
/** Files searched for a title no frame or file points to, and how many may hold it before the search stops. */
const SEARCH_FILES = 3000;
const FRAME = /((?:file:\/\/)?[^\s()'"]+?\.[cm]?[jt]sx?):(\d+):\d+/g;

export async function findJsTest(workspace: string, test: TestClues): Promise<FoundTest | undefined> {
  const name = test.name ?? test.id.split(" > ").at(-1);
  if (!name) return undefined;
  const frames = await framesIn(workspace, test.details ?? "");
  const named = [test.file, ...test.id.split(" > ")].filter((f): f is string => Boolean(f && grammarForFile(f)));
  const tried = new Set<string>();
  for (const file of [...frames.map((f) => f.file), ...(await Promise.all(named.map((f) => inRepo(workspace, f))))]) {
    if (!file || tried.has(file)) continue;
    tried.add(file);
    const hit = await findIn(
      workspace,
      file,
      name,
      test.id,
      frames.filter((f) => f.file === file).map((f) => f.line),
    );
    if (hit) return hit;
  }
  // No frame or file points to it (a title-only id, a stack outside the test): the files that hold the title.
  for (const file of repoFiles(workspace, { maxFiles: SEARCH_FILES })) {
    if (tried.has(file) || !grammarForFile(file) || grammarForFile(file) === "python") continue;
    const hit = await findIn(workspace, file, name, test.id, []);
    if (hit) return hit;
  }
  return undefined;
}

async function findIn(
  workspace: string,
  file: string,
  name: string,
  id: string,
  lines: number[],
): Promise<FoundTest | undefined> {
  const grammar = grammarForFile(file);
  if (!grammar || grammar === "python") return undefined;
  const source = await tryReadWorktreeText(workspace, file, { maxBytes: CONTEXT_READ_LIMIT });
  // A cheap look before parsing: the title's opening up to any character a string literal may escape.
  if (source === undefined || !source.includes((name.split(/['"`\\]/)[0] ?? "").slice(0, 40))) return undefined;
  const tree = await parseSource(grammar, source);
  try {
    const calls: SyntaxNode[] = [];
    collect(tree.rootNode, (n) => isTestCall(n) && titleOf(n) === name, calls);
    if (calls.length === 0) return undefined;
    const holding = calls
      .filter((c) => lines.some((l) => l - 1 >= c.startPosition.row && l - 1 <= c.endPosition.row))
      .sort((a, b) => a.endPosition.row - a.startPosition.row - (b.endPosition.row - b.startPosition.row));
    const bySuites = calls.filter((c) => enclosing(c).every((e) => !isSuiteCall(e) || id.includes(titleOf(e) ?? "")));
    const found = holding[0] ?? bySuites[0] ?? calls[0];
    if (!found) return undefined;
    const text = source.split("\n");
    return {
      file,
      context: enclosing(found).map((e) => ({
        line: e.startPosition.row + 1,
        text: text[e.startPosition.row] ?? "",
      })),
      start: found.startPosition.row + 1,
      body: text.slice(found.startPosition.row, found.endPosition.row + 1),
    };
  } finally {
    tree.delete();
  }
}

/** `it("t", …)`, `test.only("t", …)`, tape's `t.test("t", …)`. */
function isTestCall(node: SyntaxNode): boolean {
  if (node.type !== "call_expression") return false;
  const callee = node.childForFieldName("function");
  if (!callee) return false;
  if (callee.type === "identifier") return TEST_CALLEES.has(callee.text);
  if (callee.type !== "member_expression") return false;
  const property = callee.childForFieldName("property")?.text ?? "";
  const object = callee.childForFieldName("object")?.text ?? "";
  return property === "test" || (TEST_CALLEES.has(object) && MODIFIERS.has(property));
}

function isSuiteCall(node: SyntaxNode): boolean {
  if (node.type !== "call_expression") return false;
  const callee = node.childForFieldName("function");
  const head = callee?.type === "member_expression" ? callee.childForFieldName("object") : callee;
  return SUITE_CALLEES.has(head?.text ?? "");
}

/** The describe blocks and parent tests around a test call, outermost first. */
function enclosing(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let n = node.parent; n; n = n.parent) if (isSuiteCall(n) || isTestCall(n)) out.unshift(n);
  return out;
}

/** A call's title: its first argument when a plain string or a template without substitutions. */
function titleOf(call: SyntaxNode): string | undefined {
  const first = call.childForFieldName("arguments")?.namedChildren[0];
  if (first?.type === "string") return first.text.slice(1, -1).replace(/\\(.)/g, "$1");
  if (first?.type === "template_string" && !first.namedChildren.some((c) => c?.type === "template_substitution"))
    return first.text.slice(1, -1);
  return undefined;
}

function collect(node: SyntaxNode, predicate: (n: SyntaxNode) => boolean, out: SyntaxNode[]): void {
  if (predicate(node)) out.push(node);
  for (const child of node.namedChildren) if (child) collect(child, predicate, out);
}

/** The repository's files a failure's stack passes through, with the line, dependencies and node internals left out. */
async function framesIn(workspace: string, details: string): Promise<Array<{ file: string; line: number }>> {
  const out: Array<{ file: string; line: number }> = [];
  for (const match of details.matchAll(FRAME)) {
    const raw = match[1] ?? "";
    if (raw.includes("node_modules") || raw.startsWith("node:")) continue;
    const file = await inRepo(workspace, raw);
    if (file) out.push({ file, line: Number(match[2]) });
    if (out.length >= 20) break;
  }
  return out;
}

/**
 * A path as the runner printed it, as a repository-relative file that exists: relative,
 * under the workspace, or absolute under another root (the sandbox's view of the same
 * checkout), whose longest tail that is a regular file here is taken.
 */
async function inRepo(workspace: string, printed: string): Promise<string | undefined> {
  const path = printed.replace(/^file:\/\//, "");
  const root = workspace.replace(/\/?$/, "/");
  const candidates = path.startsWith(root)
    ? [path.slice(root.length)]
    : path.startsWith("/")
      ? path
          .split("/")
          .filter(Boolean)
          .map((_, i, parts) => parts.slice(i + 1).join("/"))
          .filter(Boolean)
      : [path.replace(/^\.\//, "")];
  for (const candidate of candidates) {
    if (isForgedPath(candidate)) continue;
    let full: string;
    try {
      full = safeRepoPath(workspace, candidate);
    } catch {
      continue;
    }
    const stats = await lstat(full).catch(() => undefined);
    if (stats?.isFile()) return candidate;
  }
  return undefined;
}
