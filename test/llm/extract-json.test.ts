import { describe, expect, it } from "vitest";
import { extractJson } from "../../src/llm/extract-json.ts";
import { editsSchema, localizeSchema, planSchema, verificationSchema } from "../../src/engine/lpw/schemas.ts";
import { strictCompatible } from "../../src/llm/response-format.ts";
import { z } from "zod";

describe("extractJson", () => {
  it("reads plain JSON, fenced JSON and JSON inside prose", () => {
    expect(extractJson(' {"a": 1} ')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('Here you go:\n```\n{"a": [1, 2]}\n```\nAnything else?')).toEqual({
      ok: true,
      value: { a: [1, 2] },
    });
    expect(extractJson('The plan (see [1]) is {"steps": ["use } inside a string", "then {x}"]} as asked.')).toEqual({
      ok: true,
      value: { steps: ["use } inside a string", "then {x}"] },
    });
  });

  it("skips a reasoning model's thinking and a broken first attempt", () => {
    expect(extractJson('<think>maybe {"steps": []}?</think>\n{"steps": ["a"]}')).toEqual({
      ok: true,
      value: { steps: ["a"] },
    });
    expect(extractJson('{"steps": [oops} and then {"steps": ["b"]}')).toEqual({ ok: true, value: { steps: ["b"] } });
  });

  it("says why when there is no JSON", () => {
    const result = extractJson("I think you should fix add.");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/^not JSON \(Unexpected token/);
  });
});

describe("strictCompatible", () => {
  const json = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "output" });
  it("sends strict only for schemas OpenAI's strict mode accepts", () => {
    expect(strictCompatible(json(planSchema))).toBe(true);
    expect(strictCompatible(json(verificationSchema.required()))).toBe(true);
    // An optional property, or a oneOf (discriminated edits): sent without strict, still validated here.
    expect(strictCompatible(json(localizeSchema))).toBe(false);
    expect(strictCompatible(json(editsSchema))).toBe(false);
  });
});
