import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCsv, splitLine } from "../src/index.js";

test("doubled quotes inside a quoted field are one quote", () => {
  assert.deepEqual(parseCsv('id,comment\n7,"She said ""hi"" and left"\n'), [{ id: "7", comment: 'She said "hi" and left' }]);
});

test("a field that is only an escaped quote", () => {
  assert.deepEqual(splitLine('a,"""",b'), ["a", '"', "b"]);
});

test("escaped quote next to a delimiter inside quotes", () => {
  assert.deepEqual(splitLine('"x"",y",z'), ['x",y', "z"]);
});

test("empty quoted field", () => {
  assert.deepEqual(splitLine('"",b'), ["", "b"]);
});
