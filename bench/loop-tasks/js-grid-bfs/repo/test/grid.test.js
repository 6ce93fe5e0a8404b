import assert from "node:assert/strict";
import { test } from "node:test";
import { shortestPath } from "../src/grid.js";

const OPEN = ["...", "...", "..."];

test("start is goal", () => {
  assert.equal(shortestPath(OPEN, [1, 1], [1, 1]), 0);
});

test("down the first column", () => {
  assert.equal(shortestPath(OPEN, [0, 0], [2, 0]), 2);
});

test("to the far corner", () => {
  assert.equal(shortestPath(OPEN, [0, 0], [2, 2]), 4);
});

test("walled off", () => {
  assert.equal(shortestPath([".#.", "##.", "..."], [0, 0], [2, 2]), -1);
});
