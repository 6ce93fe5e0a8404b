import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCsv, splitLine } from "../src/index.js";

test("plain records", () => {
  assert.deepEqual(parseCsv("a,b\n1,2\n3,4\n"), [{ a: "1", b: "2" }, { a: "3", b: "4" }]);
});

test("commas inside quotes do not split", () => {
  assert.deepEqual(splitLine('x,"Lee, Ann",y'), ["x", "Lee, Ann", "y"]);
});

test("other delimiters", () => {
  assert.deepEqual(parseCsv("a;b\n1;2", { delimiter: ";" }), [{ a: "1", b: "2" }]);
});

test("a record with the wrong number of fields", () => {
  assert.throws(() => parseCsv("a,b\n1"), /record 1 has 1 fields, expected 2/);
});

test("an unterminated quote", () => {
  assert.throws(() => splitLine('"abc'), /unterminated/);
});
