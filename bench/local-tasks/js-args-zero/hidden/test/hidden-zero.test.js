import assert from "node:assert/strict";
import { test } from "node:test";
import { parseArgs } from "../src/index.js";

const spec = { retries: { type: "number", default: 3 }, verbose: { type: "boolean", short: "v", default: true }, label: { type: "string", default: "main" } };

test("zero is a value, not a missing option", () => {
  assert.equal(parseArgs(["--retries", "0"], spec).retries, 0);
  assert.equal(parseArgs(["--retries=0"], spec).retries, 0);
});

test("an empty string is kept", () => {
  assert.equal(parseArgs(["--label="], spec).label, "");
});

test("false is kept over a true default", () => {
  assert.equal(parseArgs(["--verbose=false"], spec).verbose, false);
});

test("defaults still apply when absent", () => {
  assert.deepEqual(parseArgs([], spec), { retries: 3, verbose: true, label: "main", _: [] });
});
