import assert from "node:assert/strict";
import { test } from "node:test";
import { insertSorted, lowerBound } from "../src/bounds.js";

test("every position and past the end", () => {
  const items = [10, 20, 30, 40];
  assert.equal(lowerBound(items, 5), 0);
  assert.equal(lowerBound(items, 25), 2);
  assert.equal(lowerBound(items, 40), 3);
  assert.equal(lowerBound(items, 41), 4);
  assert.equal(lowerBound([], 3), 0);
});

test("insertion keeps order", () => {
  assert.deepEqual(insertSorted([5], 9), [5, 9]);
  assert.deepEqual(insertSorted([], 1), [1]);
});
