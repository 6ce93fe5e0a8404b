import assert from "node:assert/strict";
import { test } from "node:test";
import { buildUrl, parseQuery, stringify } from "../src/index.js";

test("an ampersand in a value is encoded", () => {
  assert.equal(buildUrl("/search", { q: "salt & pepper", page: 2 }), "/search?q=salt%20%26%20pepper&page=2");
});

test("reserved characters survive a round trip", () => {
  for (const q of ["a=b", "50%+off", "x&y=z", "what?#"]) assert.deepEqual(parseQuery(stringify({ q })), { q });
});

test("keys are encoded too", () => {
  assert.equal(stringify({ "a&b": 1 }), "a%26b=1");
});

test("simple values unchanged", () => {
  assert.equal(stringify({ a: 1, b: "x" }), "a=1&b=x");
});
