import assert from "node:assert/strict";
import { test } from "node:test";
import { insertSorted, lowerBound } from "../src/bounds.js";

test("finds the first of equal items", () => {
  assert.equal(lowerBound([1, 2, 2, 2, 5], 2), 1);
});

test("before everything", () => {
  assert.equal(lowerBound([3, 4, 5], 1), 0);
});

test("after everything", () => {
  assert.equal(lowerBound([1, 2, 3], 9), 3);
});

test("inserts at the end", () => {
  assert.deepEqual(insertSorted([1, 4], 7), [1, 4, 7]);
});
