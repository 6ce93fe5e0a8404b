import assert from "node:assert/strict";
import { test } from "node:test";
import { buildUrl, parseQuery, stringify } from "../src/index.js";

test("plain pairs", () => {
  assert.equal(stringify({ a: 1, b: "x" }), "a=1&b=x");
});

test("arrays repeat the key; null and undefined are left out", () => {
  assert.equal(stringify({ tag: ["a", "b"], skip: null, none: undefined }), "tag=a&tag=b");
});

test("spaces and accents are encoded", () => {
  assert.equal(buildUrl("/s", { q: "crème brûlée" }), "/s?q=cr%C3%A8me%20br%C3%BBl%C3%A9e");
});

test("round trip of simple values", () => {
  assert.deepEqual(parseQuery(`?${stringify({ q: "two words", page: 2 })}`), { q: "two words", page: "2" });
});

test("no params, no question mark", () => {
  assert.equal(buildUrl("/s"), "/s");
});
