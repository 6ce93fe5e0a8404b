import assert from "node:assert/strict";
import { test } from "node:test";
import { shortestPath } from "../src/grid.js";

test("around a wall through the last column", () => {
  assert.equal(shortestPath(["..#.", "..#.", "...."], [0, 0], [0, 3]), 7);
  assert.equal(shortestPath(["....", "....", "...."], [2, 3], [0, 3]), 2);
});
