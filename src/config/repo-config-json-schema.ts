// The JSON Schema of `.github/autogen.yml`, derived from the zod schema: committed under
// schema/ for editor completion, and walked to document every field.
import { z } from "zod";
import { repoConfigSchema } from "./repo-config-schema.ts";

export type JsonSchemaNode = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: boolean | JsonSchemaNode;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  [key: string]: unknown;
};

let cached: JsonSchemaNode | undefined;

export function repoConfigJsonSchema(): JsonSchemaNode {
  cached ??= z.toJSONSchema(repoConfigSchema, { io: "input" }) as JsonSchemaNode;
  return cached;
}

/** The keys a mapping at `path` accepts, for "did you mean" hints. */
export function knownKeysAt(path: PropertyKey[]): string[] {
  let node: JsonSchemaNode | undefined = repoConfigJsonSchema();
  for (const segment of path) node = node?.properties?.[String(segment)];
  return Object.keys(node?.properties ?? {});
}
