import assert from "node:assert/strict";
import { test } from "node:test";
import { hamming, popcount } from "../src/popcount.js";

test("matches the binary string", () => {
  for (let n = 0; n < 300; n += 1) assert.equal(popcount(n), n.toString(2).split("").filter((b) => b === "1").length);
});

test("hamming of equal numbers is zero", () => {
  assert.equal(hamming(12345, 12345), 0);
  assert.equal(hamming(1, 0), 1);
});
