import assert from "node:assert/strict";
import { test } from "node:test";
import { hamming, popcount } from "../src/popcount.js";

test("zero has no bits", () => {
  assert.equal(popcount(0), 0);
});

test("counts every bit", () => {
  assert.equal(popcount(7), 3);
  assert.equal(popcount(8), 1);
});

test("hamming distance", () => {
  assert.equal(hamming(0b1011, 0b1001), 1);
});
