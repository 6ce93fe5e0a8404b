import assert from "node:assert/strict";
import { test } from "node:test";
import { formatDuration } from "../src/index.js";

test("every unit boundary uses the larger unit", () => {
  assert.equal(formatDuration(1_000), "1s");
  assert.equal(formatDuration(60_000), "1m");
  assert.equal(formatDuration(3_600_000), "1h");
  assert.equal(formatDuration(86_400_000), "1d");
});

test("just under a boundary stays in the smaller unit", () => {
  assert.equal(formatDuration(59_999), "60s");
  assert.equal(formatDuration(999), "999ms");
});

test("large and fractional values", () => {
  assert.equal(formatDuration(12 * 86_400_000), "12d");
  assert.equal(formatDuration(90_000), "1.5m");
});
