// How a stage's output schema reaches the model, degrading with what the server accepts:
// strict `json_schema` → `json_object` with the schema in the prompt → the schema in the
// prompt alone. A server's rejection of a format is remembered per endpoint and model, so
// later calls (and later jobs) start at what works. Every answer is validated locally
// whatever the mode: servers that accept `strict` do not all enforce it.
import { APIError } from "openai";

export const OUTPUT_MODES = ["json_schema", "json_object", "prompt"] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

type Known = { mode: OutputMode; strictRejected: boolean };

export class ResponseFormatMemory {
  private readonly known = new Map<string, Known>();

  get(key: string): Known {
    return this.known.get(key) ?? { mode: "json_schema", strictRejected: false };
  }

  /** The next mode after `from`, remembered for `key`; undefined when none is left. */
  degrade(key: string, from: OutputMode): OutputMode | undefined {
    const current = this.get(key).mode;
    // Another job on the same endpoint may have degraded it already: never go back.
    if (OUTPUT_MODES.indexOf(current) > OUTPUT_MODES.indexOf(from)) return current;
    const next = OUTPUT_MODES[OUTPUT_MODES.indexOf(from) + 1];
    if (next) this.known.set(key, { ...this.get(key), mode: next });
    return next;
  }

  rejectStrict(key: string): void {
    this.known.set(key, { ...this.get(key), strictRejected: true });
  }
}

/** Shared by the clients of one process (a client is made per job), unless a caller passes its own. */
export const processResponseFormats = new ResponseFormatMemory();

export function endpointKey(baseURL: string, model: string): string {
  return `${baseURL.replace(/\/+$/, "")} ${model}`;
}

export type FormatRejection = "format" | "strict-schema";

/**
 * Whether an error answer says the response format is what the server refuses. vLLM,
 * llama.cpp and older Ollama answer 400 (ik_llama.cpp 500) naming response_format,
 * json_schema or json_object; OpenAI names the parameter and says a strict schema is invalid.
 */
export function formatRejection(error: unknown, sentStrict: boolean): FormatRejection | undefined {
  if (!(error instanceof APIError) || error.status === undefined || error.status < 400 || error.status === 429)
    return undefined;
  const text = `${error.message} ${JSON.stringify(error.error ?? null)}`;
  if (!/response_format|json_schema|json_object|structured output|guided_json/i.test(text)) return undefined;
  if (sentStrict && /invalid schema|strict/i.test(text)) return "strict-schema";
  return "format";
}

/**
 * OpenAI's strict mode accepts a subset of JSON Schema: every object closed and with all
 * its properties required, no oneOf/allOf/not. Other schemas go without `strict`.
 */
export function strictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(strictCompatible);
  if (typeof schema !== "object" || schema === null) return true;
  const node = schema as Record<string, unknown>;
  if ("oneOf" in node || "allOf" in node || "not" in node || "if" in node || "patternProperties" in node) return false;
  if (node.type === "object" || "properties" in node) {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false) return false;
    if (!Object.keys(properties).every((k) => required.includes(k))) return false;
  }
  for (const key of ["properties", "$defs", "definitions"]) {
    const children = node[key];
    if (children && typeof children === "object" && !Object.values(children).every(strictCompatible)) return false;
  }
  return [node.items, node.anyOf, node.prefixItems].every((child) => child === undefined || strictCompatible(child));
}

/** For json_object and prompt modes, where the server does not carry the schema. */
export function schemaInstruction(jsonSchema: Record<string, unknown>): string {
  return `Answer with one JSON object and nothing else: no markdown fences, no text before or after it. It must match this JSON Schema:\n${JSON.stringify(jsonSchema)}`;
}
