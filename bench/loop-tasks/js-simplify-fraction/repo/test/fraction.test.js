import assert from "node:assert/strict";
import { test } from "node:test";
import { simplify } from "../src/fraction.js";

test("already in lowest terms", () => {
  assert.deepEqual(simplify(3, 4), [3, 4]);
});

test("halves", () => {
  assert.deepEqual(simplify(6, 8), [3, 4]);
});

test("whole number", () => {
  assert.deepEqual(simplify(9, 3), [3, 1]);
});
