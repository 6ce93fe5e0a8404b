import assert from "node:assert/strict";
import { test } from "node:test";
import { longest } from "../src/collatz.js";

test("longest up to a few limits", () => {
  assert.equal(longest(3), 3);
  assert.equal(longest(20), 18);
  assert.equal(longest(27), 27);
});
