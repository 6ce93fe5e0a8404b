import assert from "node:assert/strict";
import { test } from "node:test";
import { bitcount } from "../src/bitcount.js";

test("matches the binary string", () => {
  for (let n = 0; n < 300; n += 1) assert.equal(bitcount(n), n.toString(2).split("").filter((b) => b === "1").length);
});
