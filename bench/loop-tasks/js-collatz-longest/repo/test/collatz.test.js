import assert from "node:assert/strict";
import { test } from "node:test";
import { longest, steps } from "../src/collatz.js";

test("steps", () => {
  assert.equal(steps(1), 0);
  assert.equal(steps(6), 8);
  assert.equal(steps(7), 16);
});

test("longest includes its limit", () => {
  assert.equal(longest(9), 9);
});

test("longest of one", () => {
  assert.equal(longest(1), 1);
});
