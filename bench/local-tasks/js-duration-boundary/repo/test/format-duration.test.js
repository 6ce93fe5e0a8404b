import assert from "node:assert/strict";
import { test } from "node:test";
import { formatDuration } from "../src/index.js";

test("milliseconds under a second", () => {
  assert.equal(formatDuration(250), "250ms");
});

test("fractions under ten keep one decimal", () => {
  assert.equal(formatDuration(1500), "1.5s");
  assert.equal(formatDuration(5_400_000), "1.5h");
});

test("exactly one hour", () => {
  assert.equal(formatDuration(3_600_000), "1h");
});

test("negative durations are refused", () => {
  assert.throws(() => formatDuration(-1), RangeError);
});
