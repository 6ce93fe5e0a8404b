import assert from "node:assert/strict";
import { test } from "node:test";
import { parseArgs } from "../src/index.js";

const spec = { retries: { type: "number", default: 3 }, verbose: { type: "boolean", short: "v" }, label: { type: "string", default: "main" } };

test("values from separate and joined arguments", () => {
  assert.deepEqual(parseArgs(["--retries", "5", "--label=x"], spec), { retries: 5, label: "x", _: [] });
});

test("defaults apply when an option is absent", () => {
  assert.deepEqual(parseArgs(["build"], spec), { retries: 3, label: "main", _: ["build"] });
});

test("short boolean flags", () => {
  assert.equal(parseArgs(["-v"], spec).verbose, true);
});

test("everything after -- is positional", () => {
  assert.deepEqual(parseArgs(["--", "--retries", "x"], spec)._, ["--retries", "x"]);
});

test("a number option rejects words", () => {
  assert.throws(() => parseArgs(["--retries", "many"], spec), /expects a number/);
});
