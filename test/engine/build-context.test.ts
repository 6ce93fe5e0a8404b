// Context for the model: stack-frame files first, BM25 retrieval next, the model's
// narrowing when more candidates remain than fit, within the budget.
import { describe, expect, it } from "vitest";
import { buildContext } from "../../src/engine/context/build-context.ts";
import { RetrievalIndex, splitIdentifiers } from "../../src/engine/context/retrieval-index.ts";
import { symbolsOf } from "../../src/engine/context/symbols.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../support/llm-mock.ts";
import { writeRepo } from "../support/python-task.ts";

useHttpMock();

const FILES = {
  "billing/invoice.py":
    "def invoice_total(lines, tax_rate):\n    return sum(l.amount for l in lines) * (1 + tax_rate)\n",
  "billing/discounts.py": "def apply_discount(total, coupon):\n    return total - coupon.value\n",
  "billing/currency.py": "class Money:\n    def round_cents(self, value):\n        return round(value, 2)\n",
  "shipping/rates.py": "def shipping_rate(weight):\n    return 5 + weight * 0.5\n",
  "shipping/labels.py": "def print_label(address):\n    return address.upper()\n",
  "users/accounts.py": "def deactivate(user):\n    user.active = False\n",
  "tests/test_invoice.py":
    "from billing.invoice import invoice_total\n\ndef test_total():\n    assert invoice_total([], 0.2) == 0\n",
};

describe("buildContext", () => {
  it("puts files named by the failure first, then the retrieval ranking, skipping tests", async () => {
    const dir = await writeRepo(FILES);
    const context = await buildContext(dir, {
      query: "the coupon discount is applied twice",
      mentioned: ["tests/test_invoice.py", "billing/invoice.py"],
      isTestFile,
      maxFiles: 3,
    });
    expect(context.ranking[0]).toEqual({ path: "billing/invoice.py", reason: "stack-frame" });
    expect(context.ranking[1]).toEqual({ path: "billing/discounts.py", reason: "retrieval" });
    expect(context.files.slice(0, 2)).toEqual(["billing/invoice.py", "billing/discounts.py"]);
    // Files nothing points at are not shown, only listed in the map of the rest.
    expect(context.files).toEqual(["billing/invoice.py", "billing/discounts.py"]);
    expect(context.code).toContain("--- billing/discounts.py\n1|def apply_discount(total, coupon):");
    expect(context.code).toContain("Other source files (path: top-level symbols):\nbilling/currency.py: Money\n");
    expect(context.repoMap).toContain("billing/currency.py: Money, Money.round_cents");
  });

  it("asks the model to narrow when more candidates remain than fit, and keeps only paths that exist", async () => {
    const { requests } = scriptAnswers([
      { stage: "localize", content: { files: ["shipping/rates.py", "not/a/file.py"] } },
    ]);
    const dir = await writeRepo(FILES);
    const context = await buildContext(dir, {
      query: "shipping rate price weight label address user deactivate invoice total money",
      mentioned: [],
      isTestFile,
      maxFiles: 2,
      llm: testLlm(),
    });
    expect(context.files[0]).toBe("shipping/rates.py");
    expect(context.ranking.find((r) => r.path === "shipping/rates.py")?.reason).toBe("model");
    expect(requests[0]?.messages[1]?.content).toContain('<untrusted name="candidates">');
  });

  it("stays within its character budget: a long file nothing in it matches is shown by its signatures", async () => {
    const dir = await writeRepo({
      "a.py": `def a():\n${"    x = 1\n".repeat(400)}`,
      "b.py": "def b():\n    return 1\n",
    });
    const context = await buildContext(dir, { query: "a b", mentioned: ["a.py", "b.py"], isTestFile, maxChars: 2000 });
    expect(context.code.length).toBeLessThanOrEqual(2000);
    expect(context.files).toEqual(["a.py", "b.py"]);
    expect(context.code).toContain(
      "--- a.py (401 lines; the parts shown keep their line numbers)\n1|def a():\n⋮ lines 2-401 not shown",
    );
    expect(context.code).toContain("--- b.py\n1|def b():\n2|    return 1");
  });
  it("counts the callers' signatures, the map of other files and the markers against the budget, the focal code first", async () => {
    // A focal function filling most of the budget, ten callers and thirty other files: before, the
    // signatures and the map came on top of the budget.
    const body = Array.from({ length: 40 }, (_, i) => `    total_${i} = rows[${i}] * factor  # step ${i}`).join("\n");
    const repo: Record<string, string> = {
      "calc/core.py": `def scale_rows(rows, factor):\n${body}\n    return rows\n`,
    };
    for (let i = 0; i < 10; i++)
      repo[`calc/use_${i}.py`] =
        `from calc.core import scale_rows\n\n\ndef caller_number_${i}(rows):\n    return scale_rows(rows, ${i})\n`;
    for (let i = 0; i < 30; i++) repo[`misc/module_${i}.py`] = `def helper_function_${i}():\n    return ${i}\n`;
    const dir = await writeRepo(repo);
    const maxChars = 2600;
    const context = await buildContext(dir, {
      query: "scale_rows factor",
      mentioned: [],
      named: ["scale_rows"],
      isTestFile,
      maxChars,
    });
    expect(context.code).toContain("42|    return rows");
    expect(context.code.length).toBeLessThanOrEqual(maxChars);
  });
  it("lets a large focal function after other code take the code to one and a half budgets, not three", async () => {
    const lines = (name: string, n: number) =>
      `def ${name}(rows):\n${Array.from({ length: n }, (_, i) => `    rows[${i}] = rows[${i}] + ${i}  # ${name} step`).join("\n")}\n    return rows\n`;
    const dir = await writeRepo({
      "calc/first.py": `${"# padding line to make the file long\n".repeat(60)}${lines("first_step", 40)}`,
      "calc/second.py": `${"# padding line to make the file long\n".repeat(60)}${lines("second_step", 80)}`,
    });
    const maxChars = 2500;
    const context = await buildContext(dir, {
      query: "first_step second_step",
      mentioned: [],
      named: ["first_step", "second_step"],
      isTestFile,
      maxChars,
    });
    expect(context.code).toContain("rows[39] = rows[39] + 39  # first_step step");
    // The second would take the code to about 2.4 budgets: its signature only.
    expect(context.code).toContain("def second_step(rows):");
    expect(context.code).not.toContain("# second_step step");
    expect(context.code.length).toBeLessThanOrEqual(maxChars * 1.5);
  });
});

describe("retrieval", () => {
  it("ranks by BM25 over identifiers split into words, and neutralises FTS syntax in queries", () => {
    const index = new RetrievalIndex();
    index.add("a.py", "parseHttpRequest", "def parse_http_request(raw): ...");
    index.add("b.py", "render_page", "def render_page(template): ...");
    expect(index.search("http request parsing fails")[0]).toMatchObject({ path: "a.py", symbol: "parseHttpRequest" });
    expect(index.search('render" OR 1=1 -- NEAR(')[0]?.path).toBe("b.py");
    expect(index.search("zz")).toEqual([]);
    index.close();
    expect(splitIdentifiers("parseHttpRequest snake_case")).toBe("parse Http Request snake case");
  });

  it("finds top-level symbols in Python and JavaScript", async () => {
    expect(
      (
        await symbolsOf("m.py", "class A:\n    def f(self):\n        pass\n\n@dec\ndef g(a,\n      b):\n    pass\n")
      ).map((s) => `${s.kind}:${s.name}:${s.outerStart}-${s.startLine}-${s.headerEnd}-${s.endLine}`),
    ).toEqual(["class:A:1-1-1-3", "method:A.f:2-2-2-3", "function:g:5-6-7-8"]);
    expect(
      (await symbolsOf("m.js", "export function f() {}\nconst g = () => 1;\nclass C { m() {} }\n")).map((s) => s.name),
    ).toEqual(["f", "g", "C", "C.m"]);
  });
});
