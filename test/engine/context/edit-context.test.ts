import { describe, expect, it } from "vitest";
import { editContext, planNames } from "../../../src/engine/context/edit-context.ts";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { writeRepo } from "../../support/python-task.ts";

describe("the identifiers a plan names", () => {
  it("keeps dotted method names, dunder methods and snake_case names, not file names", () => {
    const names = planNames(
      "1. In OrderedMultiDict.__getitem__, return the last value\n2. Make pop remove every value, as omd.poplast( does\n3. Leave boltons/dictutils.py's imports as they are; see wrap_text_to_colwidths",
    );
    expect(names).toEqual(
      expect.arrayContaining(["OrderedMultiDict.__getitem__", "__getitem__", "poplast", "wrap_text_to_colwidths"]),
    );
    expect(planNames("Leave the GO rule and _change_splitlevel unchanged")).toContain("_change_splitlevel");
    expect(names).not.toContain("py");
    expect(names).not.toContain("dictutils.py");
  });
});

describe("the code an implement prompt shows", () => {
  it("shows the function the plan edits whole when the plan also names a long class first", async () => {
    // parse-findall-case-sensitive: the plan quoted `Parser(format, …).findall(…)`; the class,
    // named first and shown whole, left the module-level findall as its signature.
    const methods = Array.from(
      { length: 120 },
      (_, i) =>
        `    def step_${i}(self, value):\n        """Step ${i} of the parse: one small part of the format string."""\n        return value + ${i}\n`,
    ).join("\n");
    const source = [
      `class Parser(object):\n    def findall(self, string):\n        return [string]\n\n${methods}`,
      `def findall(format, string):\n    """Search string for all occurrences of format.\n\n${"    More about findall.\n".repeat(20)}    """\n    p = Parser(format)\n    return Parser(format).findall(string)\n\n\ndef compile(format):\n    return Parser(format)\n`,
    ].join("\n\n");
    const dir = await writeRepo({ "parse.py": source });
    const context = await editContext(dir, {
      problem: "findall() ignores case_sensitive=True",
      plan: [
        "The Parser `p` is built, then a second Parser(format) is used: in the module-level findall replace `return Parser(format).findall(string)` with `return p.findall(string)`.",
      ],
      failing: [],
      changed: [],
      earlier: [],
      isTestFile,
    });
    expect(source.length).toBeGreaterThan(14_000);
    expect(context.code).toMatch(/\d+\| {4}return Parser\(format\)\.findall\(string\)/);
  });

  it("leaves out the callers' signatures and the map of other files, which the plan context shows", async () => {
    const dir = await writeRepo({
      "calc/core.py": "def scale_rows(rows, factor):\n    return [r * factor for r in rows]\n",
      "calc/use.py": "from calc.core import scale_rows\n\n\ndef double_all(rows):\n    return scale_rows(rows, 2)\n",
      "misc/other.py": "def unrelated_helper():\n    return 1\n",
    });
    const options = {
      problem: "scale_rows drops rows",
      plan: ["In scale_rows, keep every row"],
      failing: [],
      changed: [],
      earlier: [],
      isTestFile,
    };
    const context = await editContext(dir, options);
    expect(context.code).toContain("2|    return [r * factor for r in rows]");
    expect(context.code).not.toContain("Callers and callees");
    expect(context.code).not.toContain("Other source files");
    expect(context.code).not.toContain("misc/other.py");
  });

  const long = (name: string, word: string) =>
    `def ${name}(state, indent):\n${Array.from({ length: 40 }, (_, i) => `    state.${word}_${i} = indent + ${i}\n`).join("")}    return state\n`;

  it("shows whole only the plan context's symbols the plan names, when it names any", async () => {
    // js-yaml-block-mapping-same-line: readFlowCollection, shown beside readBlockMapping in the plan
    // context, came again whole into the implement prompt of a plan that never named it.
    const dir = await writeRepo({
      "pkg/loader.py": `${long("read_block_mapping", "block")}\n\n${long("read_flow_collection", "flow")}`,
    });
    const earlier = [
      { path: "pkg/loader.py", name: "read_flow_collection" },
      { path: "pkg/loader.py", name: "read_block_mapping" },
    ];
    const options = { problem: "a second key on one line is accepted", failing: [], changed: [], earlier, isTestFile };
    const named = await editContext(dir, {
      ...options,
      plan: ["In read_block_mapping, reject a key on the line of the last value"],
    });
    expect(named.code).toMatch(/\d+\| {4}state\.block_39 = indent \+ 39/);
    expect(named.code).not.toContain("state.flow_");
    // A plan in prose, naming none of them, keeps them all.
    const prose = await editContext(dir, { ...options, plan: ["Reject a key on the line of the last value"] });
    expect(prose.code).toContain("state.flow_39");
    expect(prose.code).toContain("state.block_39");
  });

  it("looks the plan's words up only in the focal files, and shows no signature a shared word retrieved", async () => {
    // more-itertools: a plan's `__bool__` for numeric_range pulled peekable.__bool__ from the same package.
    const dir = await writeRepo({
      "pkg/ranges.py":
        "class numeric_range:\n    def __bool__(self):\n        return self._start < self._stop\n\n    def __reversed__(self):\n        return iter(numeric_range(self._stop, self._start, -self._step))\n",
      "pkg/peek.py":
        "class peekable:\n    def __bool__(self):\n        try:\n            self.peek()\n        except StopIteration:\n            return False\n        return True\n",
      "pkg/steps.py": "def reversed_empty_range_step(start, stop, step):\n    return start - step\n",
    });
    const context = await editContext(dir, {
      problem: "reversed() of an empty numeric_range is not empty",
      plan: ["In numeric_range.__reversed__, return iter(()) when the range is empty (`__bool__` is false)"],
      failing: [],
      changed: [],
      earlier: [{ path: "pkg/ranges.py", name: "numeric_range.__reversed__" }],
      isTestFile,
    });
    expect(context.code).toContain("5|    def __reversed__(self):");
    expect(context.code).not.toContain("pkg/peek.py");
    expect(context.code).not.toContain("reversed_empty_range_step");
  });
});
