import assert from "node:assert/strict";
import { test } from "node:test";
import { bitcount, isPowerOfTwo } from "../src/bitcount.js";

test("zero has no bits", () => {
  assert.equal(bitcount(0), 0);
});

test("seven bits of 127", () => {
  assert.equal(bitcount(127), 7);
});

test("powers of two", () => {
  assert.equal(isPowerOfTwo(64), true);
  assert.equal(isPowerOfTwo(65), false);
});
