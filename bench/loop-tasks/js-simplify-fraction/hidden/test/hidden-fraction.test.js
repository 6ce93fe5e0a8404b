import assert from "node:assert/strict";
import { test } from "node:test";
import { simplify } from "../src/fraction.js";

test("lowest terms", () => {
  assert.deepEqual(simplify(12, 18), [2, 3]);
  assert.deepEqual(simplify(35, 14), [5, 2]);
  assert.deepEqual(simplify(7, 7), [1, 1]);
});
